package io.aloft.stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * s3stream sits on the WAL and below the broker: it knows nothing of Kafka, the broker or the
 * controller (which implements its {@code StreamMetadata}), and its packages form no cycle.
 */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.aloft.stream");

    @Test
    void streams_knowNothingOfKafkaOrTheBroker() {
        noClasses().that().resideInAPackage("io.aloft.stream..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "io.aloft.broker..",
                        "io.aloft.controller..", "org.apache.ratis..")
                .check(MAIN);
    }

    @Test
    void packages_haveNoCycles() {
        slices().matching("io.aloft.(**)").should().beFreeOfCycles().check(MAIN);
    }
}
