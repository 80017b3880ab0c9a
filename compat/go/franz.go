package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// franzCreateTopic creates the scenario's topic through kadm.
func franzCreateTopic(ctx context.Context, adm *kadm.Client, o options) error {
	step("create topic %s with %d partitions", o.topic, o.partitions)
	created, err := adm.CreateTopics(ctx, int32(o.partitions), 1, nil, o.topic)
	if err != nil {
		return err
	}
	if r := created[o.topic]; r.Err != nil {
		return fmt.Errorf("create topic: %w (%s)", r.Err, r.ErrMessage)
	}
	return nil
}

// runFranz runs the scenario with franz-go at its defaults (idempotent producer, acks=all, the
// newest protocol versions both sides support), administering through kadm.
func runFranz(o options) error {
	ctx := context.Background()
	base := []kgo.Opt{kgo.SeedBrokers(o.bootstrap), kgo.ClientID("aloft-compat-franz")}

	cl, err := kgo.NewClient(append(base, kgo.DefaultProduceTopic(o.topic))...)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	if err := franzCreateTopic(ctx, adm, o); err != nil {
		return err
	}

	step("list and describe topics")
	if err := untilVisible(func() error { return franzDescribeTopic(ctx, adm, o) }); err != nil {
		return err
	}

	step("produce %d keyed records", o.records)
	exp := newExpectation(o.partitions)
	records := make([]*kgo.Record, o.records)
	for i := range records {
		records[i] = &kgo.Record{Key: []byte(keyOf(i)), Value: []byte(valueOf(i))}
	}
	// ProduceSync lists results in the order they completed, not the order records were given.
	for _, r := range cl.ProduceSync(ctx, records...) {
		if r.Err != nil {
			return fmt.Errorf("produce record with value %s: %w", r.Record.Value, r.Err)
		}
		i, err := indexOf(string(r.Record.Value))
		if err != nil {
			return err
		}
		if err := exp.acked(i, r.Record.Partition, r.Record.Offset); err != nil {
			return err
		}
	}
	if err := exp.check(); err != nil {
		return err
	}

	step("list start and end offsets (ListOffsets)")
	if err := franzCheckListedOffsets(ctx, adm, o, exp); err != nil {
		return err
	}

	step("consume from the beginning with group %s", o.group)
	consumer, err := kgo.NewClient(append(base, kgo.ConsumerGroup(o.group), kgo.ConsumeTopics(o.topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())...)
	if err != nil {
		return err
	}
	defer consumer.Close()
	got := newConsumed(exp)
	for got.count < o.records {
		fetches := consumer.PollFetches(ctx)
		if errs := fetches.Errors(); len(errs) > 0 {
			return fmt.Errorf("poll: topic %s partition %d: %w", errs[0].Topic, errs[0].Partition, errs[0].Err)
		}
		var bad error
		fetches.EachRecord(func(r *kgo.Record) {
			if bad == nil {
				bad = got.record(r.Partition, r.Offset, string(r.Key), string(r.Value))
			}
		})
		if bad != nil {
			return bad
		}
	}

	step("commit")
	if err := consumer.CommitUncommittedOffsets(ctx); err != nil {
		return err
	}

	step("describe group %s while its member is active", o.group)
	if err := franzDescribeGroup(ctx, adm, o, "Stable", 1); err != nil {
		return err
	}

	step("fetch committed offsets (OffsetFetch)")
	if err := franzCheckCommitted(ctx, adm, o, exp); err != nil {
		return err
	}

	step("leave the group, then list groups and read offsets again")
	consumer.Close()
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		return err
	}
	if _, ok := listed[o.group]; !ok {
		return fmt.Errorf("list groups: %s missing from %v", o.group, listed.Groups())
	}
	if err := franzDescribeGroup(ctx, adm, o, "Empty", 0); err != nil {
		return err
	}
	return franzCheckCommitted(ctx, adm, o, exp)
}

func franzDescribeTopic(ctx context.Context, adm *kadm.Client, o options) error {
	all, err := adm.ListTopics(ctx)
	if err != nil {
		return err
	}
	if !all.Has(o.topic) {
		return fmt.Errorf("list topics: %s missing from %v", o.topic, all.Names())
	}
	described, err := adm.ListTopics(ctx, o.topic)
	if err != nil {
		return err
	}
	t := described[o.topic]
	if t.Err != nil {
		return fmt.Errorf("describe topic: %w", t.Err)
	}
	if len(t.Partitions) != o.partitions {
		return fmt.Errorf("describe topic: %d partitions, expected %d", len(t.Partitions), o.partitions)
	}
	for _, p := range t.Partitions {
		if p.Err != nil || p.Leader < 0 {
			return fmt.Errorf("describe topic: partition %d has leader %d, error %v", p.Partition, p.Leader, p.Err)
		}
	}
	return nil
}

func franzCheckListedOffsets(ctx context.Context, adm *kadm.Client, o options, exp *expectation) error {
	for _, side := range []struct {
		name string
		list func(context.Context, ...string) (kadm.ListedOffsets, error)
		want map[int32]int64
	}{
		{"start offsets", adm.ListStartOffsets, zeros(o.partitions)},
		{"end offsets", adm.ListEndOffsets, exp.endOffsets()},
	} {
		listed, err := side.list(ctx, o.topic)
		if err != nil {
			return fmt.Errorf("%s: %w", side.name, err)
		}
		got := map[int32]int64{}
		var perr error
		listed.Each(func(l kadm.ListedOffset) {
			if l.Err != nil && perr == nil {
				perr = fmt.Errorf("%s: partition %d: %w", side.name, l.Partition, l.Err)
			}
			got[l.Partition] = l.Offset
		})
		if perr != nil {
			return perr
		}
		if err := sameOffsets(side.name, got, side.want); err != nil {
			return err
		}
	}
	return nil
}

func franzCheckCommitted(ctx context.Context, adm *kadm.Client, o options, exp *expectation) error {
	fetched, err := adm.FetchOffsets(ctx, o.group)
	if err != nil {
		return err
	}
	got := map[int32]int64{}
	for p := 0; p < o.partitions; p++ {
		if r, ok := fetched.Lookup(o.topic, int32(p)); ok {
			if r.Err != nil {
				return fmt.Errorf("committed offset of partition %d: %w", p, r.Err)
			}
			got[int32(p)] = r.At
		}
	}
	return sameOffsets("committed offsets", got, exp.endOffsets())
}

func franzDescribeGroup(ctx context.Context, adm *kadm.Client, o options, state string, members int) error {
	described, err := adm.DescribeGroups(ctx, o.group)
	if err != nil {
		return err
	}
	g, ok := described[o.group]
	if !ok || g.Err != nil {
		return fmt.Errorf("describe group: %v (%s)", g.Err, g.ErrMessage)
	}
	if g.State != state || len(g.Members) != members {
		return fmt.Errorf("describe group: state %s with %d members, expected %s with %d", g.State,
			len(g.Members), state, members)
	}
	if members == 0 {
		return nil
	}
	if g.ProtocolType != "consumer" {
		return fmt.Errorf("describe group: protocol type %q, expected consumer", g.ProtocolType)
	}
	assigned, ok := g.Members[0].Assigned.AsConsumer()
	if !ok {
		return fmt.Errorf("describe group: the member's assignment is not a consumer assignment")
	}
	var parts []int
	for _, t := range assigned.Topics {
		if t.Topic == o.topic {
			for _, p := range t.Partitions {
				parts = append(parts, int(p))
			}
		}
	}
	sort.Ints(parts)
	if fmt.Sprint(parts) != fmt.Sprint(seq(o.partitions)) {
		return fmt.Errorf("describe group: the member is assigned partitions %v of %s, expected %v", parts, o.topic,
			seq(o.partitions))
	}
	return nil
}

func zeros(n int) map[int32]int64 {
	m := map[int32]int64{}
	for p := 0; p < n; p++ {
		m[int32(p)] = 0
	}
	return m
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
