package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * AlterUserScramCredentials and DescribeUserScramCredentials: upserts, deletions and their errors
 * (empty name, unknown mechanism, iterations out of range, a user twice, deleting what does not
 * exist, an empty salted password), descriptions of named, missing, repeated and all users. Each
 * result's error message and each description's mechanisms and iterations are noted too. User names
 * start with {@code conf-scram-}, each shape its own.
 *
 * <p>Stateless.
 */
final class ScramCases {
    private static final byte[] SALT = bytes(16, 7);
    private static final byte[] SALTED = bytes(32, 9);

    private ScramCases() {
    }

    static List<Shape> shapes() {
        return List.of(
                Shape.script(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "upsert, delete, delete again", 0,
                        Short.MAX_VALUE, (s, v) -> {
                            alter(s, "upsert", v, List.of(), List.of(upsert("conf-scram-a", 1, 4096, SALTED),
                                    upsert("conf-scram-b", 2, 16384, bytes(64, 3))));
                            alter(s, "upsert again", v, List.of(), List.of(upsert("conf-scram-a", 1, 8192, SALTED)));
                            alter(s, "delete", v, List.of(delete("conf-scram-a", 1), delete("conf-scram-b", 2)),
                                    List.of());
                            alter(s, "delete again", v, List.of(delete("conf-scram-a", 1)), List.of());
                            alter(s, "delete other mechanism", v, List.of(delete("conf-scram-b", 1)), List.of());
                            alter(s, "nothing", v, List.of(), List.of());
                        }),
                Shape.script(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "bad upsertions and deletions", 0,
                        Short.MAX_VALUE, (s, v) -> {
                            alter(s, "bad", v, List.of(delete("", 1), delete("conf-scram-c-del-unknown", 0),
                                    delete("conf-scram-c-both", 1)), List.of(upsert("conf-scram-c-unknown", 0, 4096,
                                    SALTED), upsert("conf-scram-c-type3", 3, 4096, SALTED),
                                    upsert("conf-scram-c-few", 1, 4095, SALTED), upsert("conf-scram-c-many", 2, 16385,
                                            SALTED), upsert("conf-scram-c-twice", 1, 4096, SALTED),
                                    upsert("conf-scram-c-twice", 2, 4096, SALTED), upsert("conf-scram-c-both", 2,
                                            4096, SALTED), upsert("conf-scram-c-ok", 1, 4096, SALTED)));
                            // Nothing of a refused user applied: only conf-scram-c-ok exists.
                            alter(s, "delete what may exist", v, List.of(delete("conf-scram-c-ok", 1),
                                    delete("conf-scram-c-twice", 1), delete("conf-scram-c-twice-512", 2)), List.of());
                        }),
                Shape.script(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "empty salted password", 0, Short.MAX_VALUE,
                        (s, v) -> s.ask("upsert", ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, v,
                                new AlterUserScramCredentialsRequestData().setUpsertions(List.of(
                                        upsert("conf-scram-e", 1, 4096, new byte[0]))))),
                Shape.script(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, "named, missing, repeated and all users", 0,
                        Short.MAX_VALUE, (s, v) -> {
                            alter(s, "setup", (short) 0, List.of(), List.of(upsert("conf-scram-d", 2, 8192, SALTED),
                                    upsert("conf-scram-d2", 1, 4096, SALTED)));
                            describe(s, "named", v, List.of("conf-scram-d", "conf-scram-missing", "conf-scram-dup",
                                    "conf-scram-dup"));
                            describe(s, "all (empty list)", v, List.of());
                            describe(s, "all (null)", v, null);
                            alter(s, "cleanup", (short) 0, List.of(delete("conf-scram-d", 2), delete("conf-scram-d2", 1)),
                                    List.of());
                            // Kafka answers the alter before its metadata shows the deletion to
                            // DescribeUserScramCredentials: ask again (same step: the last answer counts)
                            // until the credential is gone, within a bound.
                            for (int i = 0; i < 50 && describe(s, "after cleanup", v, List.of("conf-scram-d")); i++) {
                                Thread.sleep(100);
                            }
                        }));
    }

    private static void alter(Session s, String step, short v, List<ScramCredentialDeletion> deletions,
            List<ScramCredentialUpsertion> upsertions) throws Exception {
        AlterUserScramCredentialsResponseData r = (AlterUserScramCredentialsResponseData) s.ask(step,
                ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, v, new AlterUserScramCredentialsRequestData()
                        .setDeletions(new ArrayList<>(deletions)).setUpsertions(new ArrayList<>(upsertions)));
        if (r != null) {
            s.note(step, "results", r.results().size());
            r.results().forEach(x -> s.note(step, "message of " + x.user(), x.errorMessage()));
        }
    }

    /** Records the answer under {@code step}; returns whether it still lists credentials of a user. */
    private static boolean describe(Session s, String step, short v, List<String> users) throws Exception {
        DescribeUserScramCredentialsResponseData r = (DescribeUserScramCredentialsResponseData) s.ask(step,
                ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, v, new DescribeUserScramCredentialsRequestData().setUsers(
                        users == null ? null : new ArrayList<>(users.stream().map(u -> new UserName().setName(u))
                                .toList())));
        if (r != null) {
            s.note(step, "top-level message", r.errorMessage());
            r.results().forEach(x -> {
                s.note(step, "message of " + x.user(), x.errorMessage());
                s.note(step, "credentials of " + x.user(), x.credentialInfos().stream()
                        .map(c -> c.mechanism() + "/" + c.iterations()).sorted().toList());
            });
            return r.results().stream().anyMatch(x -> !x.credentialInfos().isEmpty());
        }
        return false;
    }

    private static ScramCredentialUpsertion upsert(String user, int mechanism, int iterations, byte[] salted) {
        return new ScramCredentialUpsertion().setName(user).setMechanism((byte) mechanism).setIterations(iterations)
                .setSalt(SALT).setSaltedPassword(salted);
    }

    private static ScramCredentialDeletion delete(String user, int mechanism) {
        return new ScramCredentialDeletion().setName(user).setMechanism((byte) mechanism);
    }

    private static byte[] bytes(int length, int value) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) value);
        return b;
    }
}
