package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.PutKv;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Controller requests end at their deadline however the quorum fails to answer. A voter that
 * takes requests and never answers (a leader cut off from its majority, a voter hung) would
 * otherwise hold a request for the Raft client's own retries, each waiting its 10 s RPC timeout (a
 * broker heartbeat waited 52 s in ControllerQuorumLossTest's first runs, past its whole session).
 * Here the "voters" are sockets that accept and never answer.
 */
class QuorumLossTest {
    @TempDir
    Path dir;

    @Test
    void votersThatNeverAnswer_requestFailsUnavailableAtItsDeadline() throws Exception {
        List<ServerSocket> sinks = new ArrayList<>();
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try {
            List<String> voters = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                ServerSocket sink = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                sinks.add(sink);
                voters.add(id + "@127.0.0.1:" + sink.getLocalPort());
                Thread t = new Thread(() -> {
                    try {
                        while (true) {
                            accepted.add(sink.accept()); // held open, never answered
                        }
                    } catch (IOException closed) {
                        // the test is over
                    }
                }, "silent-voter-" + id);
                t.setDaemon(true);
                t.start();
            }
            ControllerConfig config = ControllerConfig.builder().nodeId(100).voters(String.join(",", voters))
                    .dataDir(dir.resolve("client")).requestTimeoutMs(1_000).build();
            try (ControllerClient client = ControllerClient.create(config)) {
                CompletableFuture<Object> request = client.submit(new PutKv("k", new byte[] {1}));
                ExecutionException e = assertThrows(ExecutionException.class, () -> request.get(8, TimeUnit.SECONDS),
                        "answered within 8 s of a 1 s deadline");
                ControllerException ce = assertInstanceOf(ControllerException.class, e.getCause());
                assertEquals(ControllerException.Code.UNAVAILABLE, ce.code());
            }
        } finally {
            for (ServerSocket s : sinks) {
                s.close();
            }
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
}
