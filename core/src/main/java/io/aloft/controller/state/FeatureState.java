package io.aloft.controller.state;

import static io.aloft.controller.ControllerException.Code.INVALID_FEATURE_UPDATE;
import static io.aloft.controller.ControllerException.Code.INVALID_REQUEST;
import static io.aloft.controller.ControllerException.Code.UNSUPPORTED_FEATURE_LEVEL;

import io.aloft.controller.ControllerException;
import io.aloft.controller.command.ReportVoterFeatures;
import io.aloft.controller.command.UpdateFeatureLevel;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.FeatureRange;
import io.aloft.controller.model.FeatureStatus;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.VoterFeatures;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The cluster's finalized feature level and the ranges voters reported. The level only rises, and
 * only to a level every named voter and every unfenced broker supports (downgrades are refused:
 * snapshots and log entries already written at the higher level could not be read back by a
 * build that only knows the lower one).
 *
 * <p>A new cluster starts at {@link FeatureLevel#INITIAL} and, once every voter of the reporting
 * voter's configuration has reported, finalizes the highest level all of them (and every unfenced
 * broker) support: a cluster installed from one build gets that build's features without an upgrade
 * command. This happens once ({@link #bootstrapped}); after it, a rolling upgrade raises the level only
 * by an explicit {@code UpdateFeatureLevel}, so binaries can still be rolled back until then.
 *
 * <p>Not thread-safe: part of {@link ControllerState}, confined to the apply thread.
 */
final class FeatureState {
    private int finalizedLevel = FeatureLevel.INITIAL;
    private final TreeMap<Integer, FeatureRange> voters = new TreeMap<>();
    private boolean bootstrapped;

    int finalizedLevel() {
        return finalizedLevel;
    }

    FeatureStatus status() {
        return new FeatureStatus(finalizedLevel, voterFeatures());
    }

    List<VoterFeatures> voterFeatures() {
        List<VoterFeatures> out = new ArrayList<>(voters.size());
        voters.forEach((id, range) -> out.add(new VoterFeatures(id, range)));
        return out;
    }

    boolean bootstrapped() {
        return bootstrapped;
    }

    FeatureStatus report(ReportVoterFeatures c, Collection<BrokerInfo> brokers, Consumer<MetadataEvent> events,
            long index) {
        if (c.voterId() < 0) {
            throw new ControllerException(INVALID_REQUEST, "voter id " + c.voterId() + " is negative");
        }
        requireSupported("voter " + c.voterId(), c.supported());
        voters.put(c.voterId(), c.supported());
        if (!bootstrapped) {
            bootstrap(c.voterIds(), brokers, events, index);
        }
        return status();
    }

    /**
     * Once every voter in {@code voterIds} has reported: finalizes the highest level they all support,
     * capped by every unfenced broker's range, and marks the cluster bootstrapped (even when that level
     * is the one it already has).
     */
    private void bootstrap(List<Integer> voterIds, Collection<BrokerInfo> brokers, Consumer<MetadataEvent> events,
            long index) {
        int target = Integer.MAX_VALUE;
        for (int id : voterIds) {
            FeatureRange range = voters.get(id);
            if (range == null) {
                return; // not everyone has reported yet
            }
            target = Math.min(target, range.maxLevel());
        }
        if (voterIds.isEmpty()) {
            return;
        }
        for (BrokerInfo b : brokers) {
            if (b.state() != BrokerState.FENCED) {
                target = Math.min(target, b.supportedFeatures().maxLevel());
            }
        }
        bootstrapped = true;
        if (target > finalizedLevel) {
            finalizedLevel = target;
            events.accept(MetadataEvent.featureLevelChanged(index, finalizedLevel));
        }
    }

    /** Refuses a broker or voter whose build cannot read what the cluster writes at its finalized level. */
    void requireSupported(String who, FeatureRange supported) {
        if (!supported.contains(finalizedLevel)) {
            throw new ControllerException(UNSUPPORTED_FEATURE_LEVEL, who + " supports feature levels " + supported
                    + ", which excludes the cluster's finalized level " + finalizedLevel);
        }
    }

    int update(UpdateFeatureLevel c, Collection<BrokerInfo> brokers, Consumer<MetadataEvent> events, long index) {
        if (c.level() < FeatureLevel.INITIAL) {
            throw new ControllerException(INVALID_FEATURE_UPDATE, "feature level " + c.level() + " does not exist");
        }
        if (c.level() < finalizedLevel) {
            throw new ControllerException(INVALID_FEATURE_UPDATE, "the finalized feature level is " + finalizedLevel
                    + "; lowering it to " + c.level() + " is not supported");
        }
        if (c.voterIds().isEmpty()) {
            throw new ControllerException(INVALID_REQUEST, "no voters named: the submitter must send the voters "
                    + "of the current Raft configuration");
        }
        if (c.level() == finalizedLevel) {
            return finalizedLevel;
        }
        List<String> missing = new ArrayList<>();
        for (int voterId : new TreeSet<>(c.voterIds())) {
            FeatureRange range = voters.get(voterId);
            if (range == null) {
                missing.add("voter " + voterId + " has not reported its feature levels (is it running?)");
            } else if (!range.contains(c.level())) {
                missing.add("voter " + voterId + " supports " + range);
            }
        }
        for (BrokerInfo b : brokers) {
            if (b.state() != BrokerState.FENCED && !b.supportedFeatures().contains(c.level())) {
                missing.add("broker " + b.brokerId() + " (" + b.state() + ") supports " + b.supportedFeatures());
            }
        }
        if (!missing.isEmpty()) {
            throw new ControllerException(INVALID_FEATURE_UPDATE, "cannot finalize feature level " + c.level() + ": "
                    + String.join("; ", missing));
        }
        finalizedLevel = c.level();
        events.accept(MetadataEvent.featureLevelChanged(index, finalizedLevel));
        return finalizedLevel;
    }

    void restore(int level, List<VoterFeatures> reported, boolean wasBootstrapped) {
        finalizedLevel = level;
        bootstrapped = wasBootstrapped;
        voters.clear();
        for (VoterFeatures v : reported) {
            voters.put(v.voterId(), v.supported());
        }
    }

    Map<Integer, FeatureRange> voters() {
        return voters;
    }
}
