package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// txnRecord is one record of the transactions scenario, in the order it was produced.
type txnRecord struct {
	partition int32
	value     string
	committed bool
}

// runFranzTransactions runs the transactions scenario (issue 16) with franz-go: a transactional
// producer commits a transaction over every partition, aborts one, commits another; a second client
// with the same transactional id fences the first, whose next transaction must then fail as fenced;
// a read_committed consumer must read exactly the committed records of each partition, in order,
// and a read_uncommitted one every record produced. o.records is the records per partition per
// transaction.
func runFranzTransactions(o options) error {
	ctx := context.Background()
	base := []kgo.Opt{kgo.SeedBrokers(o.bootstrap), kgo.ClientID("aloft-compat-franz-txn")}
	txnID := o.topic + "-tx"
	producerOpts := append(base, kgo.DefaultProduceTopic(o.topic), kgo.TransactionalID(txnID),
		kgo.TransactionTimeout(60*time.Second), kgo.RecordPartitioner(kgo.ManualPartitioner()))

	cl, err := kgo.NewClient(producerOpts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if err := franzCreateTopic(ctx, adm, o); err != nil {
		return err
	}
	if err := untilVisible(func() error { return franzDescribeTopic(ctx, adm, o) }); err != nil {
		return err
	}

	var all []txnRecord
	for _, t := range []struct {
		name   string
		commit bool
	}{{"first", true}, {"second", false}, {"third", true}} {
		if all, err = franzTransaction(ctx, cl, o, t.name, t.commit, all); err != nil {
			return err
		}
	}

	step("a second client with the same transactional id fences the first")
	successor, err := kgo.NewClient(producerOpts...)
	if err != nil {
		return err
	}
	defer successor.Close()
	if _, _, err := successor.ProducerID(ctx); err != nil {
		return fmt.Errorf("successor's InitProducerId: %w", err)
	}
	if err := franzFenced(ctx, cl, o); err != nil {
		return err
	}
	if all, err = franzTransaction(ctx, successor, o, "successor", true, all); err != nil {
		return err
	}

	var committed []txnRecord
	for _, p := range all {
		if p.committed {
			committed = append(committed, p)
		}
	}
	step("read_committed reads exactly the committed records")
	if err := franzReadBack(ctx, base, o, kgo.ReadCommitted(), committed); err != nil {
		return err
	}
	step("read_uncommitted reads every record produced")
	return franzReadBack(ctx, base, o, kgo.ReadUncommitted(), all)
}

// franzTransaction produces o.records records to every partition in one transaction and commits or
// aborts it.
func franzTransaction(ctx context.Context, cl *kgo.Client, o options, name string, commit bool,
	all []txnRecord) ([]txnRecord, error) {
	end := map[bool]string{true: "commit", false: "abort"}[commit]
	step("begin, produce, %s transaction %s", end, name)
	if err := cl.BeginTransaction(); err != nil {
		return all, err
	}
	var records []*kgo.Record
	for p := 0; p < o.partitions; p++ {
		for i := 0; i < o.records; i++ {
			v := fmt.Sprintf("%s-%d-%d", name, p, i)
			records = append(records, &kgo.Record{Partition: int32(p), Key: []byte(v), Value: []byte(v)})
			all = append(all, txnRecord{int32(p), v, commit})
		}
	}
	if err := cl.ProduceSync(ctx, records...).FirstErr(); err != nil {
		return all, fmt.Errorf("transaction %s: produce: %w", name, err)
	}
	if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		return all, fmt.Errorf("transaction %s: %s: %w", name, end, err)
	}
	return all, nil
}

// franzFenced checks that the fenced client's next transaction fails as fenced and commits nothing.
func franzFenced(ctx context.Context, cl *kgo.Client, o options) error {
	if err := cl.BeginTransaction(); err != nil {
		return err
	}
	err := cl.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte("zombie")}).FirstErr()
	if err == nil {
		err = cl.EndTransaction(ctx, kgo.TryCommit)
		if err == nil {
			return errors.New("the fenced client committed a transaction")
		}
	}
	if !errors.Is(err, kerr.ProducerFenced) && !errors.Is(err, kerr.InvalidProducerEpoch) {
		return fmt.Errorf("fenced client: expected PRODUCER_FENCED or INVALID_PRODUCER_EPOCH, got %w", err)
	}
	fmt.Printf("fenced client refused: %v\n", err)
	return nil
}

// franzReadBack reads every partition from its start with the isolation level until it holds as many
// records as want has, and compares them, partition by partition, in order.
func franzReadBack(ctx context.Context, base []kgo.Opt, o options, level kgo.IsolationLevel,
	want []txnRecord) error {
	offsets := map[int32]kgo.Offset{}
	for p := 0; p < o.partitions; p++ {
		offsets[int32(p)] = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(append(base, kgo.FetchIsolationLevel(level),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{o.topic: offsets}))...)
	if err != nil {
		return err
	}
	defer cl.Close()
	wantBy := map[int32][]string{}
	for _, p := range want {
		wantBy[p.partition] = append(wantBy[p.partition], p.value)
	}
	got := map[int32][]string{}
	for n := 0; n < len(want); {
		fetches := cl.PollFetches(ctx)
		if errs := fetches.Errors(); len(errs) > 0 {
			return fmt.Errorf("poll: %v", errs[0].Err)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			got[r.Partition] = append(got[r.Partition], string(r.Value))
			n++
		})
	}
	for p := int32(0); p < int32(o.partitions); p++ {
		if fmt.Sprint(got[p]) != fmt.Sprint(wantBy[p]) {
			return fmt.Errorf("partition %d: read %d records %v, expected %d %v", p, len(got[p]), got[p],
				len(wantBy[p]), wantBy[p])
		}
	}
	return nil
}
