package main

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// The records every client produces: record i has key "key-<i mod 17>" and value "<i>", so keys
// spread over partitions and several records share a key (and so a partition).
const keyCount = 17

func keyOf(i int) string   { return fmt.Sprintf("key-%d", i%keyCount) }
func valueOf(i int) string { return fmt.Sprintf("%d", i) }

// indexOf is the inverse of valueOf.
func indexOf(value string) (int, error) {
	i, err := strconv.Atoi(value)
	if err != nil {
		return 0, fmt.Errorf("value %q is not a record number", value)
	}
	return i, nil
}

type produced struct {
	key, value string
}

// expectation is what the broker acknowledged: the record at each (partition, offset). Built from
// the producer's acknowledgements, then checked against what the consumer reads back.
type expectation struct {
	partitions int
	at         map[int32]map[int64]produced
}

func newExpectation(partitions int) *expectation {
	return &expectation{partitions: partitions, at: map[int32]map[int64]produced{}}
}

func (e *expectation) acked(i int, partition int32, offset int64) error {
	if partition < 0 || int(partition) >= e.partitions {
		return fmt.Errorf("record %d acknowledged in partition %d of a %d-partition topic", i, partition, e.partitions)
	}
	if e.at[partition] == nil {
		e.at[partition] = map[int64]produced{}
	}
	if prev, dup := e.at[partition][offset]; dup {
		return fmt.Errorf("records %s and %d both acknowledged at partition %d offset %d", prev.value, i, partition, offset)
	}
	e.at[partition][offset] = produced{keyOf(i), valueOf(i)}
	return nil
}

// check verifies the acknowledgements of a fresh topic: every partition's offsets run 0..n-1 with
// no gap, each key went to exactly one partition, and records of a partition were written in the
// order they were sent (offsets grow with the record number).
func (e *expectation) check() error {
	keyPartition := map[string]int32{}
	for p, offsets := range e.at {
		last := -1
		for o := int64(0); o < int64(len(offsets)); o++ {
			r, ok := offsets[o]
			if !ok {
				return fmt.Errorf("partition %d: offsets acknowledged are not 0..%d (missing %d)", p, len(offsets)-1, o)
			}
			i, _ := indexOf(r.value)
			if i <= last {
				return fmt.Errorf("partition %d: record %d at offset %d after record %d", p, i, o, last)
			}
			last = i
			if q, seen := keyPartition[r.key]; seen && q != p {
				return fmt.Errorf("key %s acknowledged in partitions %d and %d", r.key, q, p)
			}
			keyPartition[r.key] = p
		}
	}
	return nil
}

// endOffsets is the next offset of each partition (0 for a partition that got no record).
func (e *expectation) endOffsets() map[int32]int64 {
	ends := map[int32]int64{}
	for p := 0; p < e.partitions; p++ {
		ends[int32(p)] = int64(len(e.at[int32(p)]))
	}
	return ends
}

// consumed tracks what the consumer read, checking each record against the acknowledgement for
// its position and that each partition is read in offset order without gaps.
type consumed struct {
	e     *expectation
	next  map[int32]int64
	count int
}

func newConsumed(e *expectation) *consumed {
	return &consumed{e: e, next: map[int32]int64{}}
}

func (c *consumed) record(partition int32, offset int64, key, value string) error {
	if offset != c.next[partition] {
		return fmt.Errorf("partition %d: read offset %d, expected %d (records must arrive in order, once)",
			partition, offset, c.next[partition])
	}
	want, ok := c.e.at[partition][offset]
	if !ok {
		return fmt.Errorf("partition %d offset %d: read a record that was never acknowledged (key %q value %q)",
			partition, offset, key, value)
	}
	if want.key != key || want.value != value {
		return fmt.Errorf("partition %d offset %d: read key %q value %q, produced key %q value %q",
			partition, offset, key, value, want.key, want.value)
	}
	c.next[partition] = offset + 1
	c.count++
	return nil
}

func sameOffsets(what string, got, want map[int32]int64) error {
	for p, w := range want {
		if g, ok := got[p]; !ok || g != w {
			return fmt.Errorf("%s: partition %d is %v, expected %d (all: %s)", what, p, describe(got, p), w, format(got))
		}
	}
	return nil
}

func describe(m map[int32]int64, p int32) string {
	if v, ok := m[p]; ok {
		return fmt.Sprint(v)
	}
	return "missing"
}

func format(m map[int32]int64) string {
	keys := make([]int, 0, len(m))
	for p := range m {
		keys = append(keys, int(p))
	}
	sort.Ints(keys)
	s := "{"
	for i, p := range keys {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%d: %d", p, m[int32(p)])
	}
	return s + "}"
}

// untilVisible retries check for up to 10 s: a broker learns a topic it just created from its
// metadata log asynchronously (Apache Kafka's KRaft brokers do), so a listing right after
// CreateTopics may not show it yet. The last error is returned if it never passes.
func untilVisible(check func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := check()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
