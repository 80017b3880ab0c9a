package io.aloft;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The layering inside core: the controller (the metadata quorum, its records and its client)
 * knows nothing of the broker that uses it, and no two packages depend on each other in a cycle
 * (each package is its own slice, so a root package and its subpackages count too).
 */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.aloft.broker", "io.aloft.controller");

    @Test
    void controller_knowsNothingOfTheBroker() {
        noClasses().that().resideInAPackage("io.aloft.controller..")
                .should().dependOnClassesThat().resideInAPackage("io.aloft.broker..")
                .check(MAIN);
    }

    @Test
    void packages_haveNoCycles() {
        slices().matching("io.aloft.(**)").should().beFreeOfCycles().check(MAIN);
    }
}
