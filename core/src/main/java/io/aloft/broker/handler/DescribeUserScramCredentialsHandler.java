package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.security.scram.ScramCredential;
import io.aloft.broker.security.scram.ScramCredentials;
import io.aloft.broker.security.scram.ScramMechanism;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsResponse;

/**
 * DescribeUserScramCredentials v0: each user's mechanisms and iteration counts (never a salt or a
 * key), from this broker's view of the credentials. No users (null or empty): every user that has
 * one. Named users, as Kafka answers: RESOURCE_NOT_FOUND ("Attempt to describe a user credential that
 * does not exist: X") for one without credentials, DUPLICATE_RESOURCE ("Cannot describe SCRAM
 * credentials for the same user twice in a single request: X") for one named twice.
 *
 * <p>Who may: until ACLs land, anyone who got this far, as Kafka without an authorizer; the ACL work
 * adds Kafka's DESCRIBE on CLUSTER check. Stateless.
 */
public final class DescribeUserScramCredentialsHandler implements ApiHandler<DescribeUserScramCredentialsRequest> {
    private final ScramCredentials credentials;

    public DescribeUserScramCredentialsHandler(ScramCredentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context,
            DescribeUserScramCredentialsRequest request) {
        if (!context.authorizedOnCluster(AclOperation.DESCRIBE)) {
            // As Kafka: the request's error, repeated per user named. Built here because kafka-clients'
            // getErrorResponse fails on a null user list ("all users"; Kafka 4.3.1 then never answers).
            DescribeUserScramCredentialsResponseData refused = new DescribeUserScramCredentialsResponseData()
                    .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.CLUSTER_AUTHORIZATION_FAILED.message());
            if (request.data().users() != null) {
                request.data().users().forEach(u -> refused.results().add(new DescribeUserScramCredentialsResult()
                        .setUser(u.name()).setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                        .setErrorMessage(Errors.CLUSTER_AUTHORIZATION_FAILED.message())));
            }
            return CompletableFuture.completedFuture(new DescribeUserScramCredentialsResponse(refused));
        }
        SortedMap<String, Map<ScramMechanism, ScramCredential>> all = credentials.all();
        DescribeUserScramCredentialsResponseData data = new DescribeUserScramCredentialsResponseData();
        List<UserName> users = request.data().users();
        if (users == null || users.isEmpty()) {
            all.forEach((user, byMechanism) -> data.results().add(described(user, byMechanism)));
            return CompletableFuture.completedFuture(new DescribeUserScramCredentialsResponse(data));
        }
        Map<String, Boolean> duplicate = new LinkedHashMap<>();
        for (UserName u : users) {
            duplicate.merge(u.name(), false, (a, b) -> true);
        }
        duplicate.forEach((user, twice) -> {
            Map<ScramMechanism, ScramCredential> byMechanism = all.get(user);
            if (twice) {
                data.results().add(new DescribeUserScramCredentialsResult().setUser(user)
                        .setErrorCode(Errors.DUPLICATE_RESOURCE.code()).setErrorMessage(
                                "Cannot describe SCRAM credentials for the same user twice in a single request: " + user));
            } else if (byMechanism == null || byMechanism.isEmpty()) {
                data.results().add(new DescribeUserScramCredentialsResult().setUser(user)
                        .setErrorCode(Errors.RESOURCE_NOT_FOUND.code()).setErrorMessage(
                                "Attempt to describe a user credential that does not exist: " + user));
            } else {
                data.results().add(described(user, byMechanism));
            }
        });
        return CompletableFuture.completedFuture(new DescribeUserScramCredentialsResponse(data));
    }

    private static DescribeUserScramCredentialsResult described(String user,
            Map<ScramMechanism, ScramCredential> byMechanism) {
        DescribeUserScramCredentialsResult r = new DescribeUserScramCredentialsResult().setUser(user)
                .setErrorCode(Errors.NONE.code());
        byMechanism.forEach((m, c) -> r.credentialInfos().add(new CredentialInfo().setMechanism(m.type())
                .setIterations(c.iterations())));
        return r;
    }
}
