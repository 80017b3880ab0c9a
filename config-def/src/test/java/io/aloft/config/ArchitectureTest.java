package io.aloft.config;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The config library is the bottom of the module graph (the WAL depends on it, and the WAL may
 * depend only on the JDK and SLF4J): it uses the JDK alone.
 */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.aloft.config");

    @Test
    void config_dependsOnlyOnTheJdk() {
        classes().that().resideInAPackage("io.aloft.config..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.aloft.config..", "java..")
                .check(MAIN);
    }
}
