package io.aloft.broker;

import io.aloft.broker.lifecycle.FatalFailureHandler;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorageOptions;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.wal.ObjectStorageWal;
import io.aloft.stream.wal.ObjectWalConfig;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WriteAheadLog;
import io.aloft.wal.device.WalDevice;
import java.io.IOException;
import java.util.List;

/**
 * Opens a broker's write-ahead log: on object storage when {@code s3.wal.url} is set, else on its
 * block device or file. A device error makes the WAL unusable (every later append fails), and so
 * does a WAL in object storage that another broker took over or whose PUTs keep failing: either
 * way the broker cannot go on, so both report to its {@link FatalFailureHandler}. Stateless.
 */
final class BrokerWal {

    private BrokerWal() {
    }

    /** Opens the WAL's object store, closed after the WAL (resources close in reverse). */
    static ObjectStorage openStorage(String walUrl, FatalFailureHandler failures, List<AutoCloseable> resources) {
        ObjectStorage walStorage = ObjectStorages.open(walUrl,
                ObjectStorageOptions.builder().uncaughtExceptionHandler(failures).build());
        resources.add(walStorage);
        failures.closeOnFailure("WAL object storage", walStorage);
        return walStorage;
    }

    /** Opens (recovering) the WAL: in {@code walStorage} when not null, else on the configured device. */
    static WriteAheadLog open(ServerConfig settings, int nodeId, ObjectStorage walStorage,
            WalDevice.ChannelOpener walChannels, FatalFailureHandler failures) throws IOException {
        if (walStorage != null) {
            String prefix = ObjectWalConfig.prefix(nodeId);
            String walUrl = settings.objectWal().url();
            return ObjectStorageWal.open(walStorage, prefix, settings.objectWal().maxObjectBytes(),
                    settings.objectWal().batchIntervalMs())
                    .onFailure(cause -> failures.fail("WAL " + walUrl + " " + prefix, cause));
        }
        return BlockDeviceWal.builder(settings.wal()).channelOpener(walChannels)
                .failureListener((path, cause) -> failures.fail("WAL " + path, cause))
                .uncaughtExceptionHandler(failures).open();
    }
}
