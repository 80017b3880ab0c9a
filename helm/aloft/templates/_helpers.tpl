{{/* Names and labels (Helm 3 conventions, app.kubernetes.io/*). */}}
{{- define "aloft.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "aloft.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "aloft.selectorLabels" -}}
app.kubernetes.io/name: {{ include "aloft.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "aloft.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "aloft.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: aloft
{{- end }}

{{- define "aloft.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "aloft.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "aloft.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "aloft.headless" -}}
{{- printf "%s-headless" (include "aloft.fullname" .) }}
{{- end }}

{{- define "aloft.bootstrap" -}}
{{- printf "%s-bootstrap" (include "aloft.fullname" .) }}
{{- end }}

{{/* The bootstrap address clients are given (in-cluster DNS name). */}}
{{- define "aloft.bootstrapAddress" -}}
{{- printf "%s.%s.svc.%s:%d" (include "aloft.bootstrap" .) .Release.Namespace .Values.clusterDomain (int .Values.brokers.port) }}
{{- end }}

{{/* controller.quorum.voters: id@pod.headless.ns.svc.domain:port, ordinals 0..voters-1 of the
     brokers (combined) or of the controller StatefulSet (dedicated). */}}
{{- define "aloft.voters" -}}
{{- $root := . }}
{{- $sts := ternary "broker" "controller" (eq .Values.controller.mode "combined") }}
{{- $offset := ternary .Values.brokers.nodeIdOffset .Values.controller.nodeIdOffset (eq .Values.controller.mode "combined") | int }}
{{- $out := list }}
{{- range $i := until (int .Values.controller.voters) }}
{{- $out = append $out (printf "%d@%s-%s-%d.%s.%s.svc.%s:%d" (add $offset $i) (include "aloft.fullname" $root) $sts $i (include "aloft.headless" $root) $root.Release.Namespace $root.Values.clusterDomain (int $root.Values.controller.port)) }}
{{- end }}
{{- join "," $out }}
{{- end }}

{{- define "aloft.s3url" -}}
{{- $o := .Values.objectStorage }}
{{- $q := list (printf "region=%s" $o.region) }}
{{- if $o.endpoint }}{{- $q = append $q (printf "endpoint=%s" $o.endpoint) }}{{- end }}
{{- if $o.pathStyle }}{{- $q = append $q "pathStyle=true" }}{{- end }}
{{- printf "s3://%s?%s" .bucket (join "&" $q) }}
{{- end }}

{{/* Listeners. Both PLAINTEXT: one listener named PLAINTEXT (as before named listeners); otherwise
     INTERNAL (inter-broker, listeners.internal.port) and CLIENT (brokers.port). "true" or "". */}}
{{- define "aloft.twoListeners" -}}
{{- if or (ne .Values.listeners.client.protocol "PLAINTEXT") (ne .Values.listeners.internal.protocol "PLAINTEXT") }}true{{ end }}
{{- end }}

{{/* The name of the listener on brokers.port. */}}
{{- define "aloft.clientListener" -}}
{{- ternary "CLIENT" "PLAINTEXT" (eq (include "aloft.twoListeners" .) "true") }}
{{- end }}

{{/* "true" when a listener serves TLS (the certificate Secret is mounted). */}}
{{- define "aloft.tls" -}}
{{- if or (has .Values.listeners.client.protocol (list "SSL" "SASL_SSL")) (eq .Values.listeners.internal.protocol "SSL") }}true{{ end }}
{{- end }}

{{/* "true" when the client listener is SASL_PLAINTEXT or SASL_SSL. */}}
{{- define "aloft.sasl" -}}
{{- if hasPrefix "SASL_" .Values.listeners.client.protocol }}true{{ end }}
{{- end }}

{{/* "true" when the client listener's TLS has a trust store (a CA from the Secret). */}}
{{- define "aloft.tlsTrustStore" -}}
{{- if ternary .Values.tls.pem.caKey .Values.tls.keystore.truststoreKey (eq .Values.tls.format "pem") }}true{{ end }}
{{- end }}

{{/* The INTERNAL listener's advertised address under the pod's DNS name: (dict "root" $ "open" O)
     with O "$(" for Kubernetes' $(POD_NAME) in an env value, "${" for the shell in start.sh. */}}
{{- define "aloft.internalAdvertised" -}}
{{- $o := .open }}{{- $c := ternary ")" "}" (eq .open "$(") }}
{{- printf "INTERNAL://%sPOD_NAME%s.%s.%sPOD_NAMESPACE%s.svc.%s:%d" $o $c (include "aloft.headless" .root) $o $c .root.Values.clusterDomain (int .root.Values.listeners.internal.port) }}
{{- end }}

{{/* Cross-value checks the JSON schema cannot express; each failure names the values. */}}
{{- define "aloft.validate" -}}
{{- if and (eq .Values.controller.mode "combined") (lt (int .Values.brokers.replicas) (int .Values.controller.voters)) }}
{{- fail (printf "brokers.replicas (%d) must be at least controller.voters (%d) when controller.mode is combined" (int .Values.brokers.replicas) (int .Values.controller.voters)) }}
{{- end }}
{{- if le (int .Values.brokers.terminationGracePeriodSeconds) (int .Values.brokers.preStopSleepSeconds) }}
{{- fail "brokers.terminationGracePeriodSeconds must exceed brokers.preStopSleepSeconds (the drain runs after preStop)" }}
{{- end }}
{{- if and (eq .Values.objectStorage.type "file") (gt (int .Values.brokers.replicas) 1) }}
{{- fail "objectStorage.type file keeps objects on one broker's volume: it needs brokers.replicas 1 (use s3 for more)" }}
{{- end }}
{{- if and (eq .Values.wal.mode "objectStorage") (ne .Values.objectStorage.type "s3") }}
{{- fail "wal.mode objectStorage needs objectStorage.type s3" }}
{{- end }}
{{- if and .Values.external.enabled (eq .Values.external.type "LoadBalancer") (not (contains "{ordinal}" .Values.external.hostTemplate)) }}
{{- fail "external.hostTemplate must contain {ordinal} when external.type is LoadBalancer" }}
{{- end }}
{{- $l := .Values.listeners }}
{{- $tls := eq (include "aloft.tls" .) "true" }}
{{- if and $tls (not .Values.tls.existingSecret) }}
{{- fail (printf "listeners.client.protocol %s / listeners.internal.protocol %s use TLS: set tls.existingSecret, the Secret with the broker's certificate (tls.crt, tls.key, ca.crt as cert-manager writes it, or a key store with tls.format keystore)" $l.client.protocol $l.internal.protocol) }}
{{- end }}
{{- if and .Values.tls.existingSecret (not $tls) }}
{{- fail "tls.existingSecret is set but no listener uses TLS: set listeners.client.protocol to SSL or SASL_SSL (or listeners.internal.protocol to SSL)" }}
{{- end }}
{{- if and $tls (eq .Values.tls.format "keystore") (not .Values.tls.keystore.passwordSecret) }}
{{- fail "tls.format keystore needs tls.keystore.passwordSecret: the Secret with the key store's password (tls.keystore.keystorePasswordKey)" }}
{{- end }}
{{- if and (ne .Values.tls.clientAuth "none") (not (has $l.client.protocol (list "SSL" "SASL_SSL"))) }}
{{- fail (printf "tls.clientAuth %s needs listeners.client.protocol SSL or SASL_SSL (it is %s)" .Values.tls.clientAuth $l.client.protocol) }}
{{- end }}
{{- if and (ne .Values.tls.clientAuth "none") (ne (include "aloft.tlsTrustStore" .) "true") }}
{{- fail (printf "tls.clientAuth %s needs the CAs client certificates must chain to: tls.pem.caKey (tls.format pem) or tls.keystore.truststoreKey (tls.format keystore)" .Values.tls.clientAuth) }}
{{- end }}
{{- if and (eq (include "aloft.sasl" .) "true") (has "PLAIN" .Values.sasl.mechanisms) (not .Values.sasl.plain.existingSecret) }}
{{- fail (printf "listeners.client.protocol %s with PLAIN in sasl.mechanisms needs sasl.plain.existingSecret: the Secret whose key sasl.plain.jaasKey holds the users (PlainLoginModule required user_NAME=\"PASSWORD\" ...;)" $l.client.protocol) }}
{{- end }}
{{- if and .Values.sasl.plain.existingSecret (not (and (eq (include "aloft.sasl" .) "true") (has "PLAIN" .Values.sasl.mechanisms))) }}
{{- fail "sasl.plain.existingSecret is set but PLAIN is not served: set listeners.client.protocol to SASL_PLAINTEXT or SASL_SSL, with PLAIN in sasl.mechanisms" }}
{{- end }}
{{- if and (eq (include "aloft.twoListeners" .) "true") (has (int $l.internal.port) (list (int .Values.brokers.port) (int .Values.controller.port) (int .Values.brokers.metricsPort))) }}
{{- fail (printf "listeners.internal.port %d is already brokers.port, controller.port or brokers.metricsPort" (int $l.internal.port)) }}
{{- end }}
{{- if and .Values.autoscaler.enabled (eq $l.internal.protocol "SSL") (not (and (eq .Values.tls.format "pem") .Values.tls.pem.caKey)) }}
{{- fail "autoscaler.enabled with listeners.internal.protocol SSL needs tls.format pem and tls.pem.caKey: the autoscaler trusts the brokers through that CA file" }}
{{- end }}
{{- if and .Values.autoscaler.enabled (eq .Values.controller.mode "combined") (lt (int .Values.autoscaler.policy.minBrokers) (int .Values.controller.voters)) }}
{{- fail "autoscaler.policy.minBrokers must be at least controller.voters (voters are never removed)" }}
{{- end }}
{{- end }}
