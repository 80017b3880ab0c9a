package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"sort"
	"sync/atomic"

	"github.com/IBM/sarama"
)

// runSarama runs the scenario with Sarama speaking the protocol of the given Kafka version: Sarama
// picks request versions from config.Version, so V0_11_0_0 sends the oldest requests a client
// still uses in the field (record batches v2, ListOffsets v2, JoinGroup v1, ...).
func runSarama(o options, versionName string) error {
	version, err := saramaVersion(versionName)
	if err != nil {
		return err
	}
	sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Ltime|log.Lmicroseconds)
	config := sarama.NewConfig()
	config.Version = version
	config.ClientID = "aloft-compat-sarama"
	config.Producer.RequiredAcks = sarama.WaitForAll
	config.Producer.Return.Successes = true
	config.Consumer.Offsets.Initial = sarama.OffsetOldest
	config.Consumer.Offsets.AutoCommit.Enable = false
	config.Consumer.Return.Errors = true
	step("connect with protocol version %s", version)

	client, err := sarama.NewClient([]string{o.bootstrap}, config)
	if err != nil {
		return err
	}
	defer client.Close()
	admin, err := sarama.NewClusterAdminFromClient(client)
	if err != nil {
		return err
	}

	step("create topic %s with %d partitions", o.topic, o.partitions)
	detail := &sarama.TopicDetail{NumPartitions: int32(o.partitions), ReplicationFactor: 1}
	if err := admin.CreateTopic(o.topic, detail, false); err != nil {
		return err
	}

	step("list and describe topics")
	if err := untilVisible(func() error { return saramaDescribeTopic(client, admin, o) }); err != nil {
		return err
	}

	step("produce %d keyed records", o.records)
	exp := newExpectation(o.partitions)
	producer, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		return err
	}
	msgs := make([]*sarama.ProducerMessage, o.records)
	for i := range msgs {
		msgs[i] = &sarama.ProducerMessage{Topic: o.topic, Key: sarama.StringEncoder(keyOf(i)),
			Value: sarama.StringEncoder(valueOf(i))}
	}
	if err := producer.SendMessages(msgs); err != nil {
		return err
	}
	for i, m := range msgs {
		if err := exp.acked(i, m.Partition, m.Offset); err != nil {
			return err
		}
	}
	if err := exp.check(); err != nil {
		return err
	}

	step("list start and end offsets (ListOffsets)")
	if err := saramaCheckListedOffsets(admin, o, sarama.OffsetOldest, zeros(o.partitions)); err != nil {
		return err
	}
	if err := saramaCheckListedOffsets(admin, o, sarama.OffsetNewest, exp.endOffsets()); err != nil {
		return err
	}

	step("consume from the beginning with group %s", o.group)
	consumerClient, err := sarama.NewClient([]string{o.bootstrap}, config)
	if err != nil {
		return err
	}
	defer consumerClient.Close()
	group, err := sarama.NewConsumerGroupFromClient(o.group, consumerClient)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	handler := &collector{out: make(chan *sarama.ConsumerMessage)}
	errc := make(chan error, 2)
	go func() {
		for ctx.Err() == nil {
			if err := group.Consume(ctx, []string{o.topic}, handler); err != nil {
				errc <- err
				return
			}
		}
	}()
	go func() {
		for err := range group.Errors() {
			errc <- err
		}
	}()
	got := newConsumed(exp)
	for got.count < o.records {
		select {
		case m := <-handler.out:
			if err := got.record(m.Partition, m.Offset, string(m.Key), string(m.Value)); err != nil {
				return err
			}
		case err := <-errc:
			return fmt.Errorf("consumer group: %w", err)
		}
	}

	step("commit")
	session := handler.session.Load()
	(*session).Commit()

	step("describe group %s while its member is active", o.group)
	if err := saramaDescribeGroup(admin, o, "Stable", 1); err != nil {
		return err
	}

	step("fetch committed offsets (OffsetFetch)")
	if err := saramaCheckCommitted(admin, o, exp); err != nil {
		return err
	}

	step("leave the group, then list groups and read offsets again")
	cancel()
	if err := group.Close(); err != nil {
		return err
	}
	groups, err := admin.ListConsumerGroups()
	if err != nil {
		return err
	}
	if _, ok := groups[o.group]; !ok {
		return fmt.Errorf("list groups: %s missing from %v", o.group, groups)
	}
	if err := saramaDescribeGroup(admin, o, "Empty", 0); err != nil {
		return err
	}
	return saramaCheckCommitted(admin, o, exp)
}

func saramaVersion(name string) (sarama.KafkaVersion, error) {
	switch name {
	case "default":
		return sarama.DefaultVersion, nil
	case "max":
		return sarama.MaxVersion, nil
	default:
		return sarama.ParseKafkaVersion(name)
	}
}

// collector hands every claimed message to the scenario goroutine. A message is marked before it
// is handed over, so once the scenario has seen all of them, a commit covers all of them.
type collector struct {
	out     chan *sarama.ConsumerMessage
	session atomic.Pointer[sarama.ConsumerGroupSession]
}

func (c *collector) Setup(s sarama.ConsumerGroupSession) error {
	c.session.Store(&s)
	return nil
}

func (c *collector) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (c *collector) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		s.MarkMessage(m, "")
		select {
		case c.out <- m:
		case <-s.Context().Done():
			return nil
		}
	}
	return nil
}

// saramaDescribeTopic lists and describes topics through Metadata requests only: ClusterAdmin's
// ListTopics also sends DescribeConfigs, whose oldest version (sent under V0_11_0_0) Kafka 4.0
// removed (KIP-896).
func saramaDescribeTopic(client sarama.Client, admin sarama.ClusterAdmin, o options) error {
	if err := client.RefreshMetadata(); err != nil {
		return err
	}
	all, err := client.Topics()
	if err != nil {
		return err
	}
	if !contains(all, o.topic) {
		return fmt.Errorf("list topics: %s missing from %v", o.topic, all)
	}
	described, err := admin.DescribeTopics([]string{o.topic})
	if err != nil {
		return err
	}
	if len(described) != 1 || described[0].Err != sarama.ErrNoError {
		return fmt.Errorf("describe topic: %+v", described)
	}
	if len(described[0].Partitions) != o.partitions {
		return fmt.Errorf("describe topic: %d partitions, expected %d", len(described[0].Partitions), o.partitions)
	}
	for _, p := range described[0].Partitions {
		if p.Err != sarama.ErrNoError || p.Leader < 0 {
			return fmt.Errorf("describe topic: partition %d has leader %d, error %v", p.ID, p.Leader, p.Err)
		}
	}
	return nil
}

func saramaCheckListedOffsets(admin sarama.ClusterAdmin, o options, at int64, want map[int32]int64) error {
	name := map[int64]string{sarama.OffsetOldest: "start offsets", sarama.OffsetNewest: "end offsets"}[at]
	request := map[int32]int64{}
	for p := 0; p < o.partitions; p++ {
		request[int32(p)] = at
	}
	listed, err := admin.ListOffsets(map[string]map[int32]int64{o.topic: request}, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	got := map[int32]int64{}
	for p, r := range listed[o.topic] {
		if r.Err != nil && r.Err != sarama.ErrNoError {
			return fmt.Errorf("%s: partition %d: %w", name, p, r.Err)
		}
		got[p] = r.Offset
	}
	return sameOffsets(name, got, want)
}

func saramaCheckCommitted(admin sarama.ClusterAdmin, o options, exp *expectation) error {
	fetched, err := admin.ListConsumerGroupOffsets(o.group, map[string][]int32{o.topic: int32s(seq(o.partitions))})
	if err != nil {
		return err
	}
	if fetched.Err != sarama.ErrNoError {
		return fmt.Errorf("committed offsets: %w", fetched.Err)
	}
	got := map[int32]int64{}
	for p := 0; p < o.partitions; p++ {
		if b := fetched.GetBlock(o.topic, int32(p)); b != nil {
			if b.Err != sarama.ErrNoError {
				return fmt.Errorf("committed offset of partition %d: %w", p, b.Err)
			}
			got[int32(p)] = b.Offset
		}
	}
	return sameOffsets("committed offsets", got, exp.endOffsets())
}

func saramaDescribeGroup(admin sarama.ClusterAdmin, o options, state string, members int) error {
	described, err := admin.DescribeConsumerGroups([]string{o.group})
	if err != nil {
		return err
	}
	if len(described) != 1 || described[0].Err != sarama.ErrNoError {
		return fmt.Errorf("describe group: %+v", described)
	}
	g := described[0]
	if g.State != state || len(g.Members) != members {
		return fmt.Errorf("describe group: state %s with %d members, expected %s with %d", g.State,
			len(g.Members), state, members)
	}
	for _, m := range g.Members {
		if g.ProtocolType != "consumer" {
			return fmt.Errorf("describe group: protocol type %q, expected consumer", g.ProtocolType)
		}
		assignment, err := m.GetMemberAssignment()
		if err != nil {
			return fmt.Errorf("describe group: member assignment: %w", err)
		}
		parts := []int{}
		for _, p := range assignment.Topics[o.topic] {
			parts = append(parts, int(p))
		}
		sort.Ints(parts)
		if fmt.Sprint(parts) != fmt.Sprint(seq(o.partitions)) {
			return fmt.Errorf("describe group: the member is assigned partitions %v of %s, expected %v", parts,
				o.topic, seq(o.partitions))
		}
	}
	return nil
}

func int32s(s []int) []int32 {
	out := make([]int32, len(s))
	for i, v := range s {
		out[i] = int32(v)
	}
	return out
}

func contains(all []string, s string) bool {
	for _, a := range all {
		if a == s {
			return true
		}
	}
	return false
}
