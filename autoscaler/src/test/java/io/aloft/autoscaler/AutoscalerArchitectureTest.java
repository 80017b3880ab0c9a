package io.aloft.autoscaler;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The autoscaler drives brokers only through public interfaces (the Kafka protocol, the metrics
 * endpoint, process control and the Kubernetes API): its classes must not touch broker code, even
 * though its tests put the broker on the class path to start clusters.
 */
class AutoscalerArchitectureTest {

    @Test
    void mainClasses_dependOnNoBrokerCode() {
        JavaClasses main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.aloft.autoscaler");
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("io.aloft.broker..", "io.aloft.controller..", "io.aloft.metrics..",
                        "io.aloft.stream..", "io.aloft.wal..", "io.aloft.servers..", "io.aloft.config..")
                .check(main);
    }
}
