package io.aloft.broker;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.AllocateProducerIds;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.query.Queries;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;

/** How the brokers of a new cluster agree on its id. Stateless. */
final class ClusterIdElection {

    /** How long a broker waits for the elected one to write a new cluster's id (see {@link #clusterId}). */
    private static final long CLUSTER_ID_WAIT_MS = 30_000;

    private ClusterIdElection() {
    }

    /**
     * The cluster id: made once, by one broker, and kept in the controller's key-value space.
     * Brokers of a new cluster start together and PutKv is a plain write (the last one wins), so
     * the broker that makes it is elected rather than whichever reads "absent" first: the one the
     * controller hands the very first producer id. AllocateProducerIds is applied in log order and
     * starts at 0, so exactly one broker gets 0 (the id is then used up, like any unused block).
     * The others wait for its value; should the winner die before writing it, they write their own
     * after {@link #CLUSTER_ID_WAIT_MS} and all read back the one the controller kept.
     */
    static String clusterId(ControllerClient controller, int nodeId) throws Exception {
        Queries.GetKv get = new Queries.GetKv("cluster.id");
        byte[] existing = controller.query(get, byte[].class).get(60, TimeUnit.SECONDS);
        if (existing != null) {
            return new String(existing, StandardCharsets.UTF_8);
        }
        long first = controller.submit(new AllocateProducerIds(nodeId, 1), Long.class).get(60, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLUSTER_ID_WAIT_MS);
        while (first != 0 && existing == null && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(100);
            existing = controller.query(get, byte[].class).get(60, TimeUnit.SECONDS);
        }
        if (existing == null) {
            controller.submit(new PutKv("cluster.id", Uuid.randomUuid().toString().getBytes(StandardCharsets.UTF_8)))
                    .get(60, TimeUnit.SECONDS);
            existing = controller.query(get, byte[].class).get(60, TimeUnit.SECONDS);
        }
        return new String(existing, StandardCharsets.UTF_8);
    }

}
