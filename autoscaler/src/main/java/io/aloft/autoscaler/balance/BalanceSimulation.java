package io.aloft.autoscaler.balance;

import io.aloft.autoscaler.model.BrokerLoad;
import io.aloft.autoscaler.model.ClusterSnapshot;
import io.aloft.autoscaler.model.PartitionLoad;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Runs the real {@link Balancer} on synthetic clusters, without brokers: a seeded generator of
 * skewed loads and placements, and a loop that plans, applies the plan ({@link Balancer#apply}) and
 * plans again, as the autoscaler's service does one run after another, until a plan is empty. For
 * the README's 30-broker scenario and for tests; {@code main} prints one run.
 *
 * <p>Deterministic: the same arguments give the same cluster and the same result. Stateless and
 * thread-safe.
 */
public final class BalanceSimulation {
    /** Partitions per synthetic topic (the last topic may have fewer). */
    static final int PARTITIONS_PER_TOPIC = 20;
    /** Skew of partition ingress: the hottest of 1000 carries about 16 times the coldest. */
    static final double ZIPF_EXPONENT = 0.4;

    private BalanceSimulation() {
    }

    /**
     * The outcome of {@link #run}.
     *
     * @param before the cluster before the first plan
     * @param after the cluster after the last plan
     * @param moves moves over all plans
     * @param plans non-empty plans made
     * @param lastFindings the findings of the last plan made (empty or not)
     */
    public record Result(ClusterSnapshot before, ClusterSnapshot after, int moves, int plans,
            List<String> lastFindings) {

        /** One line: deviations before and after, and the moves it took. */
        public String summary() {
            return String.format(Locale.ROOT,
                    "%d brokers, %d partitions: network-in max deviation %+.1f%% -> %+.1f%%,"
                            + " network-out %+.1f%% -> %+.1f%%, %d moves in %d plans",
                    before.brokers().size(), before.partitions().size(), maxInDeviationPercent(before),
                    maxInDeviationPercent(after), maxOutDeviationPercent(before), maxOutDeviationPercent(after),
                    moves, plans);
        }
    }

    /**
     * A cluster with skewed loads: topics of {@value #PARTITIONS_PER_TOPIC} partitions whose ingress
     * follows a Zipf-like law (exponent {@value #ZIPF_EXPONENT}, so the hottest partition stays well
     * under a broker's share and a band is reachable), each topic read by 1 to 3 consumers (egress =
     * ingress x fan-out), placed at random with broker {@code i} (from 1) weighted {@code i}, so the high ids
     * are overloaded. Broker ids 1..{@code brokers}, in {@code racks} racks ({@code rack-0}...; 0 for
     * no racks), all ready. Broker rates are the sums of their partitions'.
     */
    public static ClusterSnapshot skewedCluster(int brokers, int racks, int partitions, double totalBytesInPerSec,
            long seed) {
        if (brokers < 1 || partitions < 0 || racks < 0) {
            throw new IllegalArgumentException(
                    "brokers " + brokers + ", racks " + racks + ", partitions " + partitions);
        }
        Random random = new Random(seed);
        double[] weight = new double[partitions];
        double sum = 0;
        for (int i = 0; i < partitions; i++) {
            weight[i] = Math.pow(i + 1, -ZIPF_EXPONENT);
            sum += weight[i];
        }
        for (int i = partitions - 1; i > 0; i--) { // shuffle the ranks over the partitions
            int j = random.nextInt(i + 1);
            double w = weight[i];
            weight[i] = weight[j];
            weight[j] = w;
        }
        int[] fanout = new int[(partitions + PARTITIONS_PER_TOPIC - 1) / PARTITIONS_PER_TOPIC];
        for (int t = 0; t < fanout.length; t++) {
            fanout[t] = 1 + random.nextInt(3);
        }
        int totalWeight = brokers * (brokers + 1) / 2;
        List<PartitionLoad> list = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            int pick = random.nextInt(totalWeight);
            int broker = 1;
            while (pick >= broker) {
                pick -= broker;
                broker++;
            }
            double in = totalBytesInPerSec * weight[i] / sum;
            int topic = i / PARTITIONS_PER_TOPIC;
            list.add(new PartitionLoad(String.format(Locale.ROOT, "topic-%03d", topic), i % PARTITIONS_PER_TOPIC,
                    broker, in, in * fanout[topic]));
        }
        List<BrokerLoad> loads = new ArrayList<>();
        for (int id = 1; id <= brokers; id++) {
            loads.add(BrokerLoad.ofNetwork(id, racks == 0 ? null : "rack-" + (id % racks), 0, 0));
        }
        return withBrokerSums(new ClusterSnapshot(0, loads, list));
    }

    /**
     * {@code snapshot} with {@code count} new, empty, ready brokers, numbered after the highest id and
     * racked as {@link #skewedCluster} does ({@code rack-(id % racks)}; 0 for none): a scale-out.
     */
    public static ClusterSnapshot withNewBrokers(ClusterSnapshot snapshot, int count, int racks) {
        int next = snapshot.brokers().stream().mapToInt(BrokerLoad::id).max().orElse(0) + 1;
        List<BrokerLoad> brokers = new ArrayList<>(snapshot.brokers());
        for (int id = next; id < next + count; id++) {
            brokers.add(BrokerLoad.ofNetwork(id, racks == 0 ? null : "rack-" + (id % racks), 0, 0));
        }
        return new ClusterSnapshot(snapshot.timeMs(), brokers, snapshot.partitions());
    }

    /**
     * {@code snapshot} with every partition's rates multiplied by {@code factor} and the brokers'
     * rates set to their sums: a load step (e.g. 10 for 100 MiB/s to 1 GiB/s) with the same shape.
     */
    public static ClusterSnapshot withLoadScaled(ClusterSnapshot snapshot, double factor) {
        List<PartitionLoad> partitions = snapshot.partitions().stream().map(p -> new PartitionLoad(p.topic(),
                p.partition(), p.broker(), p.bytesInPerSec() * factor, p.bytesOutPerSec() * factor)).toList();
        return withBrokerSums(new ClusterSnapshot(snapshot.timeMs(), snapshot.brokers(), partitions));
    }

    /** {@code snapshot} with each broker's rates set to the sum of its partitions' (other signals kept). */
    public static ClusterSnapshot withBrokerSums(ClusterSnapshot snapshot) {
        Map<Integer, double[]> sums = new HashMap<>();
        for (PartitionLoad p : snapshot.partitions()) {
            double[] s = sums.computeIfAbsent(p.broker(), b -> new double[2]);
            s[0] += p.bytesInPerSec();
            s[1] += p.bytesOutPerSec();
        }
        List<BrokerLoad> brokers = new ArrayList<>();
        for (BrokerLoad b : snapshot.brokers()) {
            double[] s = sums.getOrDefault(b.id(), new double[2]);
            brokers.add(new BrokerLoad(b.id(), b.rack(), s[0], s[1], b.cpuUsage(), b.walAppendP99Seconds(),
                    b.produceP99Seconds(), b.walFullWaitsPerSec(), b.walFillRatio(), b.ready()));
        }
        return new ClusterSnapshot(snapshot.timeMs(), brokers, snapshot.partitions());
    }

    /**
     * Plans, applies and plans again until a plan is empty or {@code maxPlans} plans were made.
     *
     * @param draining brokers marked for removal, for every plan
     */
    public static Result run(ClusterSnapshot snapshot, Set<Integer> draining, Balancer balancer, int maxPlans) {
        ClusterSnapshot current = snapshot;
        int moves = 0;
        int plans = 0;
        List<String> findings = List.of();
        while (plans < maxPlans) {
            Plan plan = balancer.plan(current, draining);
            findings = plan.findings();
            if (plan.isEmpty()) {
                break;
            }
            plans++;
            moves += plan.moves().size();
            current = Balancer.apply(current, plan);
        }
        return new Result(snapshot, current, moves, plans, findings);
    }

    /** The largest ingress deviation from the mean over ready brokers, in percent, signed; 0 if none. */
    public static double maxInDeviationPercent(ClusterSnapshot snapshot) {
        return maxDeviation(snapshot, true);
    }

    /** The largest egress deviation from the mean over ready brokers, in percent, signed; 0 if none. */
    public static double maxOutDeviationPercent(ClusterSnapshot snapshot) {
        return maxDeviation(snapshot, false);
    }

    private static double maxDeviation(ClusterSnapshot snapshot, boolean in) {
        List<BrokerLoad> ready = snapshot.brokers().stream().filter(BrokerLoad::ready).toList();
        double mean = ready.stream().mapToDouble(b -> rate(b, in)).average().orElse(0);
        double worst = 0;
        for (BrokerLoad b : ready) {
            double d = mean == 0 ? 0 : (rate(b, in) - mean) / mean * 100;
            worst = Math.abs(d) > Math.abs(worst) ? d : worst;
        }
        return worst;
    }

    private static double rate(BrokerLoad b, boolean in) {
        double v = in ? b.bytesInPerSec() : b.bytesOutPerSec();
        return Double.isFinite(v) ? v : 0;
    }

    /**
     * Prints one run: {@code BalanceSimulation [brokers [partitions [MiB/s in [racks [seed
     * [maxMovesPerPlan]]]]]]}, defaults 30, 1000, 1024, 3, 1, 100.
     */
    public static void main(String[] args) {
        int brokers = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int partitions = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        double mib = args.length > 2 ? Double.parseDouble(args[2]) : 1024;
        int racks = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        long seed = args.length > 4 ? Long.parseLong(args[4]) : 1;
        int maxMoves = args.length > 5 ? Integer.parseInt(args[5]) : BalancerConfig.DEFAULT_MAX_MOVES_PER_PLAN;
        ClusterSnapshot snapshot = skewedCluster(brokers, racks, partitions, mib * 1024 * 1024, seed);
        Balancer balancer = new Balancer(BalancerConfig.defaults().withMaxMovesPerPlan(maxMoves));
        long start = System.nanoTime();
        Result result = run(snapshot, Set.of(), balancer, 1000);
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println(result.summary() + String.format(Locale.ROOT, " (planned in %d ms)", ms));
        result.lastFindings().forEach(line -> System.out.println("  " + line));
    }
}
