package io.aloft.controller.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.aloft.controller.ControllerException;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.FeatureRange;
import io.aloft.stream.metadata.StreamMetadataException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The production registry: every record and enum that can reach the codec has a schema, and type
 * ids match the checked-in ledger ({@code golden/controller/type-ids.txt}), where an id, once
 * given, keeps its name forever (a retired type stays, marked {@code retired}).
 */
class SchemaRegistryTest {
    private static final SchemaRegistry REGISTRY = ControllerSchemas.REGISTRY;
    private static final String LEDGER = "/golden/controller/type-ids.txt";

    /** Enums that travel by name inside {@code Failure}, not through their own schema. */
    private static final Set<Class<?>> CARRIED_AS_NAMES = Set.of(ControllerException.Code.class,
            StreamMetadataException.Code.class);

    @Test
    void everyRecordAndEnumThatCanReachTheCodecHasASchema() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.aloft.controller", "io.aloft.stream.metadata");
        Deque<Class<?>> todo = new ArrayDeque<>();
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            // What commands, replies, queries and snapshots are made of...
            if (pkg.equals("io.aloft.controller.command") || pkg.equals("io.aloft.controller.model")
                    || pkg.equals("io.aloft.controller.query")
                    || (pkg.equals("io.aloft.controller.state") && c.getModifiers().contains(
                            com.tngtech.archunit.core.domain.JavaModifier.PUBLIC))) {
                todo.add(c.reflect());
            }
            // ...and what the controller's client and state take from s3stream (requests, reply values).
            if (pkg.equals("io.aloft.controller.client") || pkg.equals("io.aloft.controller.state")) {
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    if (d.getTargetClass().getPackageName().equals("io.aloft.stream.metadata")) {
                        todo.add(d.getTargetClass().reflect());
                    }
                }
            }
        }
        Set<String> seen = new TreeSet<>();
        List<String> missing = new ArrayList<>();
        while (!todo.isEmpty()) {
            Class<?> type = todo.poll();
            if ((!type.isRecord() && !type.isEnum()) || CARRIED_AS_NAMES.contains(type) || !seen.add(type.getName())) {
                continue;
            }
            if (!REGISTRY.contains(type)) {
                missing.add(type.getName());
            }
            if (type.isRecord()) {
                for (RecordComponent component : type.getRecordComponents()) {
                    addTypes(component.getGenericType(), todo);
                }
            }
        }
        assertEquals(List.of(), missing, "records and enums without a schema (add one in ControllerSchemas)");
        assertTrue(seen.size() > 50, "the walk found the controller's types: " + seen);
    }

    private static void addTypes(Type type, Deque<Class<?>> todo) {
        if (type instanceof Class<?> c) {
            todo.add(c);
        } else if (type instanceof ParameterizedType p) {
            for (Type arg : p.getActualTypeArguments()) {
                addTypes(arg, todo);
            }
        }
    }

    @Test
    void typeIdsMatchTheLedger_andNoneIsEverReused() throws IOException {
        Map<Integer, String[]> ledger = ledger();
        List<String> problems = new ArrayList<>();
        REGISTRY.schemas().forEach((id, schema) -> {
            String name = schema instanceof RecordSchema<?> r ? r.name() : ((EnumSchema<?>) schema).name();
            String[] entry = ledger.get(id);
            if (entry == null) {
                problems.add(id + " " + name + " is not in the ledger: append it");
            } else if (!entry[1].equals(name) || entry.length > 2) {
                problems.add(id + " " + name + " is listed as '" + String.join(" ", entry)
                        + "': an id keeps its type forever, and a retired id is never reused");
            }
        });
        ledger.forEach((id, entry) -> {
            if (entry.length == 2 && REGISTRY.byId(id) == null) {
                problems.add(String.join(" ", entry) + " is gone from the registry: mark it retired in the ledger");
            }
        });
        assertEquals(List.of(), problems);
    }

    /** Id, name and an optional "retired", one type a line; '#' starts a comment. */
    static Map<Integer, String[]> ledger() throws IOException {
        Map<Integer, String[]> out = new TreeMap<>();
        try (InputStream in = SchemaRegistryTest.class.getResourceAsStream(LEDGER)) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String trimmed = line.replaceAll("#.*", "").trim();
                if (!trimmed.isEmpty()) {
                    String[] entry = trimmed.split("\\s+");
                    out.put(Integer.parseInt(entry[0]), entry);
                }
            }
        }
        return out;
    }

    @Test
    void theBuildSupportsTheFeatureLevelsItDeclares() {
        assertEquals(new FeatureRange(FeatureLevel.MIN_SUPPORTED, FeatureLevel.LATEST), REGISTRY.supported());
        // Level 1 is every record at version 0, as of the change that introduced the schemas; a type
        // added by a later level starts at version 0 of that level.
        java.util.Map<String, Integer> laterTypes = java.util.Map.of("ReplaceStreamRange", FeatureLevel.KEY_COMPACTION);
        for (Object schema : REGISTRY.schemas().values()) {
            if (schema instanceof RecordSchema<?> r) {
                assertEquals(laterTypes.getOrDefault(r.name(), FeatureLevel.INITIAL), r.levelOf(0), r.name());
            }
        }
    }
}
