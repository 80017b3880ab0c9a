package io.aloft.helm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The objects one {@code helm template} rendered, looked up by kind and name. Immutable. */
record Manifests(List<ObjectNode> objects) {
    static Manifests parse(String yaml) throws IOException {
        return new Manifests(List.copyOf(Helm.parseDocuments(yaml)));
    }

    List<ObjectNode> ofKind(String kind) {
        return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
    }

    Optional<ObjectNode> find(String kind, String name) {
        return ofKind(kind).stream().filter(o -> name.equals(o.path("metadata").path("name").asText())).findFirst();
    }

    ObjectNode get(String kind, String name) {
        return find(kind, name).orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + names()));
    }

    List<String> names() {
        List<String> out = new ArrayList<>();
        objects.forEach(o -> out.add(o.path("kind").asText() + "/" + o.path("metadata").path("name").asText()));
        return out;
    }

    /** server.properties of the chart's ConfigMap as key -> value. */
    Map<String, String> serverProperties() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : get("ConfigMap", "aloft-config").path("data").path("server.properties").asText().split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        return out;
    }

    static JsonNode container(ObjectNode workload) {
        return workload.path("spec").path("template").path("spec").path("containers").path(0);
    }

    /** A container's env as name -> value (or "fieldRef:PATH" / "secret:NAME/KEY"). */
    static Map<String, String> env(JsonNode container) {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode e : container.path("env")) {
            JsonNode from = e.path("valueFrom");
            String value = e.has("value") ? e.path("value").asText()
                    : from.has("fieldRef") ? "fieldRef:" + from.path("fieldRef").path("fieldPath").asText()
                    : "secret:" + from.path("secretKeyRef").path("name").asText() + "/"
                            + from.path("secretKeyRef").path("key").asText();
            out.put(e.path("name").asText(), value);
        }
        return out;
    }
}
