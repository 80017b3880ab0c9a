package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.security.SecurityMetadata;
import io.aloft.broker.security.scram.ScramCredential;
import io.aloft.broker.security.scram.ScramCredentials;
import io.aloft.broker.security.scram.ScramMechanism;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;

/**
 * AlterUserScramCredentials v0: upserts and deletes SCRAM credentials in the controller's security
 * entries ({@link ScramCredentials}), as Kafka's controller checks them: a user named more than once
 * in the request (in deletions or upsertions, whatever the mechanism) gets DUPLICATE_RESOURCE and
 * none of its changes apply; an empty user name UNACCEPTABLE_CREDENTIAL, an unknown mechanism
 * UNSUPPORTED_SASL_MECHANISM, iterations outside 4096..16384 UNACCEPTABLE_CREDENTIAL ("Too few
 * iterations", "Too many iterations"), deleting a credential that does not exist
 * RESOURCE_NOT_FOUND; below the cluster's SECURITY_METADATA feature level UNSUPPORTED_VERSION. The
 * client sends the salted password (Kafka's admin client derives it); only the salt, iterations,
 * stored key and server key are kept. Results list deletions, then upsertions, then failures, as
 * Kafka's do.
 *
 * <p>Who may: until ACLs land, any principal that got this far (authenticated on a SASL or mTLS
 * listener, anonymous on a PLAINTEXT one), as Kafka without an authorizer; the ACL work adds
 * Kafka's ALTER on CLUSTER check. Stateless; completes when the controller has committed.
 */
public final class AlterUserScramCredentialsHandler implements ApiHandler<AlterUserScramCredentialsRequest> {
    private static final String DUPLICATE = "A user credential cannot be altered twice in the same request";

    private final ScramCredentials credentials;

    public AlterUserScramCredentialsHandler(ScramCredentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_USER_SCRAM_CREDENTIALS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AlterUserScramCredentialsRequest request) {
        if (!context.authorizedOnCluster(AclOperation.ALTER)) { // as Kafka: every user refused
            return CompletableFuture.completedFuture(request.getErrorResponse(
                    Errors.CLUSTER_AUTHORIZATION_FAILED.exception()));
        }
        Map<String, ScramCredentialDeletion> deletions = new LinkedHashMap<>();
        Map<String, ScramCredentialUpsertion> upsertions = new LinkedHashMap<>();
        Map<String, AlterUserScramCredentialsResult> failures = new LinkedHashMap<>();
        for (ScramCredentialDeletion d : request.data().deletions()) {
            if (failures.containsKey(d.name())) {
                continue;
            }
            if (deletions.remove(d.name()) != null) {
                failures.put(d.name(), result(d.name(), Errors.DUPLICATE_RESOURCE, DUPLICATE));
                continue;
            }
            AlterUserScramCredentialsResult invalid = checkDeletion(d);
            if (invalid != null) {
                failures.put(d.name(), invalid);
            } else {
                deletions.put(d.name(), d);
            }
        }
        for (ScramCredentialUpsertion u : request.data().upsertions()) {
            if (failures.containsKey(u.name())) {
                continue;
            }
            if (deletions.remove(u.name()) != null || upsertions.remove(u.name()) != null) {
                failures.put(u.name(), result(u.name(), Errors.DUPLICATE_RESOURCE, DUPLICATE));
                continue;
            }
            AlterUserScramCredentialsResult invalid = checkUpsertion(u);
            if (invalid != null) {
                failures.put(u.name(), invalid);
            } else {
                upsertions.put(u.name(), u);
            }
        }
        List<SecurityMetadata.Change> changes = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        for (ScramCredentialDeletion d : deletions.values()) {
            changes.add(SecurityMetadata.Change.delete(ScramCredentials.key(d.name(),
                    ScramMechanism.forType(d.mechanism()))));
            changed.add(d.name());
        }
        for (ScramCredentialUpsertion u : upsertions.values()) {
            ScramMechanism mechanism = ScramMechanism.forType(u.mechanism());
            try {
                ScramCredential credential = ScramCredential.fromSaltedPassword(mechanism, u.salt(), u.saltedPassword(),
                        u.iterations());
                changes.add(SecurityMetadata.Change.put(ScramCredentials.key(u.name(), mechanism), credential.encode()));
                changed.add(u.name());
            } catch (IllegalArgumentException e) {
                // An empty salted password: the HMAC refuses it, and Kafka answers what its exception maps to.
                failures.put(u.name(), result(u.name(), Errors.UNKNOWN_SERVER_ERROR, e.getMessage()));
            }
        }
        CompletableFuture<Void> applied = changes.isEmpty() ? CompletableFuture.completedFuture(null)
                : credentials.apply(changes);
        return applied.handle((ok, error) -> {
            AlterUserScramCredentialsResponseData data = new AlterUserScramCredentialsResponseData();
            for (String user : changed) {
                data.results().add(error == null ? result(user, Errors.NONE, null)
                        : result(user, ControllerErrors.toKafka(error), ControllerErrors.message(error)));
            }
            data.results().addAll(failures.values());
            return new AlterUserScramCredentialsResponse(data);
        });
    }

    private AlterUserScramCredentialsResult checkDeletion(ScramCredentialDeletion d) {
        AlterUserScramCredentialsResult invalid = checkNameAndMechanism(d.name(), d.mechanism());
        if (invalid != null) {
            return invalid;
        }
        if (credentials.credential(d.name(), ScramMechanism.forType(d.mechanism())) == null) {
            return result(d.name(), Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist");
        }
        return null;
    }

    private static AlterUserScramCredentialsResult checkUpsertion(ScramCredentialUpsertion u) {
        AlterUserScramCredentialsResult invalid = checkNameAndMechanism(u.name(), u.mechanism());
        if (invalid != null) {
            return invalid;
        }
        if (u.iterations() < ScramMechanism.MIN_ITERATIONS) {
            return result(u.name(), Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations");
        }
        if (u.iterations() > ScramMechanism.MAX_ITERATIONS) {
            return result(u.name(), Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations");
        }
        return null;
    }

    private static AlterUserScramCredentialsResult checkNameAndMechanism(String name, byte mechanism) {
        if (name.isEmpty()) {
            return result(name, Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty");
        }
        if (ScramMechanism.forType(mechanism) == null) {
            return result(name, Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism");
        }
        return null;
    }

    private static AlterUserScramCredentialsResult result(String user, Errors error, String message) {
        return new AlterUserScramCredentialsResult().setUser(user).setErrorCode(error.code()).setErrorMessage(message);
    }
}
