package io.aloft.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP endpoint of {@code metrics.listener}: {@code /metrics} through the Prometheus client's
 * own handler (text format, OpenMetrics when the scraper's Accept header asks for it, gzip when it
 * accepts it, {@code name[]} filters), {@code /healthz} and {@code /readyz} from {@link Health}.
 * Other paths answer 404, methods other than GET and HEAD 405.
 *
 * <p>Requests are served one at a time on one daemon thread, with a short queue: scrapes and
 * probes are rare and cheap, and a flood of them must not take CPU from the Kafka listeners. The
 * server is separate from the Kafka listeners on purpose: a probe answers even while those are
 * saturated, and it never speaks to clients.
 *
 * <p>Thread-safe: started and closed by the process's starting and closing threads.
 */
public final class MetricsHttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetricsHttpServer.class);

    /** Requests waiting beyond the one being served; more are refused (the connection is closed). */
    private static final int QUEUE = 64;

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsHttpServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Binds {@code address} and starts serving.
     *
     * @throws IOException if the address cannot be bound (the message names it)
     */
    public static MetricsHttpServer start(MetricsConfig.HttpAddress address, ServerMetrics metrics, Health health)
            throws IOException {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(address.host(), address.port()), QUEUE);
        } catch (IOException e) {
            throw new IOException(MetricsConfig.LISTENER_CONFIG + "=" + address + " cannot be bound: " + e.getMessage(),
                    e);
        }
        ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(QUEUE), runnable -> {
                    Thread t = new Thread(runnable, "aloft-metrics-http");
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.DiscardPolicy());
        MetricsHandler scrape = new MetricsHandler(metrics.prometheusRegistry());
        server.createContext("/metrics", exchange -> {
            if (allowed(exchange)) {
                scrape.handle(exchange);
            }
        });
        server.createContext("/healthz", exchange -> {
            if (allowed(exchange)) {
                boolean alive = health.alive();
                respond(exchange, alive ? 200 : 503, alive ? "ok\n" : "failed\n");
            }
        });
        server.createContext("/readyz", exchange -> {
            if (allowed(exchange)) {
                List<String> unmet = health.unmet();
                respond(exchange, unmet.isEmpty() ? 200 : 503,
                        unmet.isEmpty() ? "ready\n" : "not ready: " + String.join(", ", unmet) + "\n");
            }
        });
        server.createContext("/", exchange -> {
            if (allowed(exchange)) {
                respond(exchange, 404, "not found: try /metrics, /healthz or /readyz\n");
            }
        });
        server.setExecutor(executor);
        server.start();
        log.info("Serving /metrics, /healthz and /readyz on http://{}:{}", address.host(),
                server.getAddress().getPort());
        return new MetricsHttpServer(server, executor);
    }

    /** The bound port (the given one, or the one chosen for port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    private static boolean allowed(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        if (method.equals("GET") || method.equals("HEAD")) {
            return true;
        }
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        respond(exchange, 405, "method not allowed\n");
        return false;
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
