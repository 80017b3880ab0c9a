/**
 * What the autoscaler knows of a cluster: immutable snapshots of broker and partition load that the
 * balancer and the scaling policies decide from. Nothing here talks to a broker.
 */
package io.aloft.autoscaler.model;
