package io.aloft.compat;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/**
 * The harness treats both brokers as black boxes: aloft-core is on the test class path only so
 * AloftServer can start it in a child JVM, and no test may reach into it.
 */
class ArchitectureTest {

    private static final JavaClasses HARNESS = new ClassFileImporter().importPackages("io.aloft.compat");

    @Test
    void harness_usesNoBrokerClasses() {
        noClasses().that().resideInAPackage("io.aloft.compat..")
                .should().dependOnClassesThat().resideInAnyPackage("io.aloft.broker..", "io.aloft.controller..",
                        "io.aloft.stream..", "io.aloft.wal..", "kafka..")
                .check(HARNESS);
    }
}
