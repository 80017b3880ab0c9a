package io.aloft.broker;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A KIP-848 consumer ({@code group.protocol=consumer}) in a child JVM, for tests that SIGKILL it:
 * a member that vanishes without leaving. Prints {@code owns [partitions]} each time its assignment
 * changes. Like {@link BrokerChild} it halts when its parent closes its standard input, so it never
 * outlives the test.
 *
 * <p>Arguments: bootstrap servers, group id, topic.
 */
public final class ConsumerChild {
    private ConsumerChild() {
    }

    public static void main(String[] args) {
        BrokerChild.watchParent();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.subscribe(List.of(args[2]));
            Set<String> last = null;
            while (true) {
                consumer.poll(Duration.ofMillis(100));
                Set<String> owns = new TreeSet<>();
                for (TopicPartition tp : consumer.assignment()) {
                    owns.add(tp.toString());
                }
                if (!owns.equals(last)) {
                    System.out.println("owns " + owns);
                    System.out.flush();
                    last = owns;
                }
            }
        }
    }
}
