/**
 * The autoscaling policy file: {@link io.aloft.autoscaler.policy.PolicyLoader} reads YAML into an
 * immutable {@link io.aloft.autoscaler.policy.Policy} record tree, strictly (unknown keys are errors)
 * and reporting every invalid field by its path in one
 * {@link io.aloft.autoscaler.policy.PolicyException}. Reference: {@code autoscaler/POLICY.md}.
 * No I/O except reading the file.
 */
package io.aloft.autoscaler.policy;
