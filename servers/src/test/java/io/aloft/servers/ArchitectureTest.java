package io.aloft.servers;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The launchers treat brokers as black boxes: processes and the Kafka protocol, no broker classes. */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.aloft.servers");

    @Test
    void launchers_useNoBrokerClasses() {
        noClasses().that().resideInAPackage("io.aloft.servers..")
                .should().dependOnClassesThat().resideInAnyPackage("io.aloft.broker..", "io.aloft.controller..",
                        "io.aloft.stream..", "io.aloft.wal..", "io.aloft.omb..", "kafka..")
                .check(MAIN);
    }
}
