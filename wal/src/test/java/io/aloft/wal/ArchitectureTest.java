package io.aloft.wal;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The WAL's place at the bottom of the module graph: it knows nothing of streams, brokers, the
 * controller or Kafka (only the JDK, SLF4J and the config library below it, which itself uses the
 * JDK alone), and its packages form no cycle. Fails the build on a forbidden import.
 */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.aloft.wal");

    @Test
    void wal_dependsOnlyOnTheJdkSlf4jAndTheConfigLibrary() {
        classes().that().resideInAPackage("io.aloft.wal..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.aloft.wal..", "io.aloft.config..",
                        "java..", "javax..", "jdk..", "com.sun.nio.file..", "org.slf4j..")
                .check(MAIN);
    }

    @Test
    void packages_haveNoCycles() {
        slices().matching("io.aloft.(**)").should().beFreeOfCycles().check(MAIN);
    }
}
