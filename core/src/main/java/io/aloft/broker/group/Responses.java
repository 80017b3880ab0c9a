package io.aloft.broker.group;

import java.util.List;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/** Error responses shared by the coordinator's parts, shaped to be valid in every version. Stateless. */
final class Responses {

    private Responses() {
    }

    static JoinGroupResponseData joinError(Errors error, String memberId, short version) {
        return new JoinGroupResponseData()
                .setErrorCode(error.code())
                .setGenerationId(-1)
                .setMemberId(memberId == null ? "" : memberId)
                .setLeader("")
                // ProtocolName only became nullable in v7.
                .setProtocolName(version >= 7 ? null : "")
                .setMembers(List.of());
    }

    static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(GroupMember.EMPTY);
    }

    /**
     * The error a client should see when the group log failed an append. The client retries
     * COORDINATOR_NOT_AVAILABLE and NOT_COORDINATOR by finding the coordinator again, which is
     * what a failed write to the coordinator's partition calls for.
     */
    static Errors forLogFailure(Throwable failure) {
        Throwable t = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (t instanceof ApiException) {
            Errors e = Errors.forException(t);
            if (e == Errors.NOT_LEADER_OR_FOLLOWER || e == Errors.NOT_COORDINATOR) {
                return Errors.NOT_COORDINATOR;
            }
            if (e == Errors.MESSAGE_TOO_LARGE || e == Errors.RECORD_LIST_TOO_LARGE) {
                return Errors.INVALID_COMMIT_OFFSET_SIZE;
            }
        }
        return Errors.COORDINATOR_NOT_AVAILABLE;
    }
}
