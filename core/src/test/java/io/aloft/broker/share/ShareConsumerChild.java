package io.aloft.broker.share;

import io.aloft.broker.BrokerChild;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A share consumer in a child JVM, for a test that SIGKILLs it while it holds records: explicit
 * acknowledgement, it polls until it has {@code count} records, prints {@code got value#deliveryCount}
 * for each and {@code holding} after them, and then stops polling without acknowledging anything
 * (its client keeps heartbeating on its own thread). It halts when its parent closes its standard
 * input, so it never outlives the test.
 *
 * <p>Arguments: bootstrap servers, group id, topic, count.
 */
public final class ShareConsumerChild {
    private ShareConsumerChild() {
    }

    public static void main(String[] args) {
        BrokerChild.watchParent();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        int count = Integer.parseInt(args[3]);
        KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(p);
        consumer.subscribe(List.of(args[2]));
        int got = 0;
        while (got < count) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                System.out.println("got " + r.value() + "#" + r.deliveryCount().orElse((short) -1));
                got++;
            }
        }
        System.out.println("holding");
        System.out.flush();
        while (true) {
            LockSupport.park(); // until killed; the consumer is never closed
        }
    }
}
