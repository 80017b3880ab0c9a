package io.aloft.broker.group.consumer;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * Resolves members' subscriptions (topic names and RE2J regular expressions, as Kafka uses) to
 * topics. A regex is resolved against the cluster's topic names each time the subscription metadata
 * is computed, so topics that appear or go change it; what each regex matched is kept while the
 * cluster's name collection is the same object (a metadata change publishes a new one), so a
 * heartbeat does not match every topic name again. Compiled patterns are cached too.
 * Confined to the shard's thread.
 */
final class Subscriptions {

    private static final int MAX_CACHED_PATTERNS = 1024;

    /** Compiled patterns by source, least recently used first. */
    private final Map<String, Pattern> patterns = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Pattern> eldest) {
            return size() > MAX_CACHED_PATTERNS;
        }
    };

    /** The name collection {@link #matches} were computed against. */
    private Collection<String> matchedNames;
    /** Regex to the topic names it matched in {@link #matchedNames}. */
    private final Map<String, Set<String>> matches = new HashMap<>();

    /** @throws PatternSyntaxException if {@code regex} is not valid RE2J */
    Pattern pattern(String regex) {
        Pattern p = patterns.get(regex);
        if (p == null) {
            p = Pattern.compile(regex);
            patterns.put(regex, p);
        }
        return p;
    }

    /** Whether {@code regex} compiles. */
    boolean isValid(String regex) {
        try {
            pattern(regex);
            return true;
        } catch (PatternSyntaxException e) {
            return false;
        }
    }

    /**
     * The topics {@code members} subscribe to that exist in {@code cluster}, by name: the group's
     * subscription metadata.
     */
    Map<String, TopicMetadata> resolve(Collection<MemberSubscription> members, ClusterTopics cluster) {
        Set<String> names = new TreeSet<>();
        Set<String> regexes = new TreeSet<>();
        for (MemberSubscription s : members) {
            if (s == null) {
                continue;
            }
            names.addAll(s.topicNames());
            if (s.topicRegex() != null) {
                regexes.add(s.topicRegex());
            }
        }
        if (!regexes.isEmpty()) {
            Collection<String> all = cluster.names();
            if (all != matchedNames || matches.size() > MAX_CACHED_PATTERNS) {
                matches.clear();
                matchedNames = all;
            }
            for (String regex : regexes) {
                names.addAll(matches.computeIfAbsent(regex, r -> matching(r, all)));
            }
        }
        Map<String, TopicMetadata> out = new TreeMap<>();
        for (String name : names) {
            TopicMetadata t = cluster.topic(name);
            if (t != null) {
                out.put(name, t);
            }
        }
        return out;
    }

    /**
     * The ids of the topics of {@code topics} that {@code member} subscribes to (what an assignor
     * may give it).
     */
    Set<Uuid> topicsOf(MemberSubscription member, Map<String, TopicMetadata> topics) {
        Set<Uuid> out = new TreeSet<>();
        if (member == null) {
            return out;
        }
        for (String name : member.topicNames()) {
            TopicMetadata t = topics.get(name);
            if (t != null) {
                out.add(t.id());
            }
        }
        if (member.topicRegex() != null && isValid(member.topicRegex())) {
            Pattern p = pattern(member.topicRegex());
            topics.forEach((name, t) -> {
                if (p.matches(name)) {
                    out.add(t.id());
                }
            });
        }
        return out;
    }

    private Set<String> matching(String regex, Collection<String> topics) {
        Set<String> out = new TreeSet<>();
        if (!isValid(regex)) {
            return out;
        }
        Pattern p = pattern(regex);
        for (String topic : topics) {
            if (!isInternal(topic) && p.matches(topic)) {
                out.add(topic);
            }
        }
        return out;
    }

    /** Internal topics are never matched by a pattern, as in Kafka. */
    private static boolean isInternal(String topic) {
        return INTERNAL_TOPICS.contains(topic);
    }

    private static final Set<String> INTERNAL_TOPICS =
            Set.of("__consumer_offsets", "__transaction_state", "__share_group_state");

    /** Topic ids to names, for responses that name topics. */
    static Map<Uuid, String> namesById(Map<String, TopicMetadata> topics) {
        Map<Uuid, String> out = new HashMap<>();
        topics.values().forEach(t -> out.put(t.id(), t.name()));
        return out;
    }
}
