package io.aloft.omb;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The benchmark treats brokers as black boxes: its runner talks to Aloft and Apache Kafka only
 * through the Kafka protocol and child processes, never through their classes. (The module also
 * has aloft-core in runtime scope only, so such an import would not compile; this names the rule.)
 */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.aloft.omb");

    @Test
    void runner_usesNoBrokerClasses() {
        noClasses().that().resideInAPackage("io.aloft.omb..")
                .should().dependOnClassesThat().resideInAnyPackage("io.aloft.broker..", "io.aloft.controller..",
                        "io.aloft.stream..", "io.aloft.wal..", "kafka..", "org.apache.kafka.server..")
                .check(MAIN);
    }

    @Test
    void packages_haveNoCycles() {
        slices().matching("io.aloft.(**)").should().beFreeOfCycles().check(MAIN);
    }
}
