package io.aloft.autoscaler.policy;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@code metrics} section: how to find each broker's metrics endpoint. Either a URL template
 * with {@code {host}} and {@code {id}} placeholders, or (the default) each broker's own
 * {@code metrics.listener} config read through the Admin API (DescribeConfigs).
 *
 * <p>Immutable.
 *
 * @param discovery where endpoints come from
 * @param urlTemplate the template, present exactly when {@code discovery} is {@link Discovery#URL_TEMPLATE}
 */
public record MetricsPolicy(Discovery discovery, Optional<String> urlTemplate) {

    /** The default: DescribeConfigs. */
    public static final MetricsPolicy DEFAULTS = new MetricsPolicy(Discovery.DESCRIBE_CONFIGS, Optional.empty());

    /** Where endpoints come from. */
    public enum Discovery {
        /** {@code urlTemplate: "http://{host}:9464"}. */
        URL_TEMPLATE,
        /** {@code discover: describeConfigs}: each broker's {@code metrics.listener}. */
        DESCRIBE_CONFIGS
    }

    public MetricsPolicy {
        Objects.requireNonNull(discovery, "discovery");
        Objects.requireNonNull(urlTemplate, "urlTemplate");
        if ((discovery == Discovery.URL_TEMPLATE) != urlTemplate.isPresent()) {
            throw new IllegalArgumentException(discovery + " with template " + urlTemplate);
        }
    }

    /**
     * The metrics base URL of broker {@code id} at {@code host} from the template (no trailing
     * path: the caller appends {@code /metrics}).
     *
     * @throws IllegalStateException when discovery is not by template
     */
    public String url(String host, int id) {
        String template = urlTemplate.orElseThrow(() -> new IllegalStateException("discovery is " + discovery));
        return template.replace("{host}", host).replace("{id}", Integer.toString(id));
    }
}
