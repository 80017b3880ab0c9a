package io.aloft.broker.group.share;

import io.aloft.broker.group.consumer.Assignment;
import java.util.Objects;

/**
 * A member of a share group: its metadata and its current epoch and assignment, as its records
 * last said. Immutable.
 *
 * @param metadata null until the member's metadata record is replayed
 */
public record ShareGroupMember(String memberId, ShareGroupRecord.Metadata metadata, ShareGroupRecord.Current current) {

    static final ShareGroupRecord.Current JOINING = new ShareGroupRecord.Current(0, 0, Assignment.EMPTY);

    public ShareGroupMember {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(current, "current");
    }

    public int epoch() {
        return current.epoch();
    }

    public Assignment assigned() {
        return current.assigned();
    }

    ShareGroupMember with(ShareGroupRecord.Metadata m) {
        return new ShareGroupMember(memberId, m, current);
    }

    ShareGroupMember with(ShareGroupRecord.Current c) {
        return new ShareGroupMember(memberId, metadata, c);
    }
}
