// Command aloft-compat-go runs Aloft's client-compatibility scenario with a Go Kafka client:
// franz-go (with kadm) or Sarama at a chosen protocol version. The Java harness in compat/ runs it
// as a child process against Apache Kafka 4.3.1 (proof the scenario is right) and against Aloft.
//
// The scenario: create a topic, produce keyed records, list offsets, consume them with a consumer
// group from the beginning, commit, then read the committed offsets back and list and describe the
// group and the topic. Every step prints one line; the last line is "OK ..." and the exit status 0,
// or the failure on stderr with status 1. A step still waiting when -timeout passes exits with
// status 2 and names the step, so a hang is reported as what it was waiting for.
//
// -client franz-txn runs the transactions scenario instead (franztxn.go): commits, an abort and
// fencing by a transactional franz-go producer, read back at both isolation levels.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

type options struct {
	bootstrap  string
	topic      string
	group      string
	partitions int
	records    int
	timeout    time.Duration
}

// progress is the step the scenario is in, printed when the deadline passes. Written by the
// scenario goroutine, read by the deadline timer's goroutine, hence the lock.
var progress struct {
	sync.Mutex
	step string
}

func step(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	progress.Lock()
	progress.step = s
	progress.Unlock()
	fmt.Printf("step: %s\n", s)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAILED: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	var o options
	client := flag.String("client", "", "franz | sarama | franz-txn (the transactions scenario)")
	saramaVersion := flag.String("sarama-version", "default",
		"Sarama's config.Version: default, max, or a Kafka version such as 0.11.0.0")
	flag.StringVar(&o.bootstrap, "bootstrap", "", "host:port of the broker")
	flag.StringVar(&o.topic, "topic", "", "topic to create (must not exist)")
	flag.StringVar(&o.group, "group", "", "consumer group to use (must not exist)")
	flag.IntVar(&o.partitions, "partitions", 3, "partitions of the topic")
	flag.IntVar(&o.records, "records", 300, "records to produce and consume")
	flag.DurationVar(&o.timeout, "timeout", 25*time.Second, "give up (exit 2) after this long")
	flag.Parse()
	if o.bootstrap == "" || o.topic == "" || o.group == "" || o.partitions < 1 || o.records < 1 {
		flag.Usage()
		os.Exit(64)
	}

	time.AfterFunc(o.timeout, func() {
		progress.Lock()
		s := progress.step
		progress.Unlock()
		fmt.Fprintf(os.Stderr, "TIMEOUT: no progress within %s; stuck at step: %s\n", o.timeout, s)
		os.Exit(2)
	})

	var err error
	switch *client {
	case "franz":
		err = runFranz(o)
	case "sarama":
		err = runSarama(o, *saramaVersion)
	case "franz-txn":
		err = runFranzTransactions(o)
	default:
		fail("unknown -client %q (expected franz, sarama or franz-txn)", *client)
	}
	if err != nil {
		progress.Lock()
		s := progress.step
		progress.Unlock()
		fail("at step %q: %v", s, err)
	}
	if *client == "franz-txn" {
		fmt.Printf("OK franz-txn: transactions committed, aborted and fenced over %d partitions; read_committed "+
			"read exactly the committed records, read_uncommitted all\n", o.partitions)
		return
	}
	fmt.Printf("OK %s: %d records in %d partitions produced, consumed in order by group %s, offsets committed\n",
		strings.TrimSpace(*client), o.records, o.partitions, o.group)
}
