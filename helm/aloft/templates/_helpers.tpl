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
{{- if and .Values.autoscaler.enabled (eq .Values.controller.mode "combined") (lt (int .Values.autoscaler.policy.minBrokers) (int .Values.controller.voters)) }}
{{- fail "autoscaler.policy.minBrokers must be at least controller.voters (voters are never removed)" }}
{{- end }}
{{- end }}
