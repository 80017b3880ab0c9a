{{/* The pod spec of a broker (role "broker") or a dedicated controller (role "controller").
     Called with (dict "root" $ "role" ROLE). */}}
{{- define "aloft.podSpec" -}}
{{- $root := .root }}
{{- $v := $root.Values }}
{{- $broker := eq .role "broker" }}
{{- $p := ternary $v.brokers $v.controller $broker }}
serviceAccountName: {{ include "aloft.serviceAccountName" $root }}
automountServiceAccountToken: {{ $v.serviceAccount.automountToken }}
{{- with $v.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
terminationGracePeriodSeconds: {{ $v.brokers.terminationGracePeriodSeconds }}
securityContext:
  {{- toYaml $v.brokers.podSecurityContext | nindent 2 }}
{{- with $p.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $p.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $p.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
topologySpreadConstraints:
{{- if and $broker $v.brokers.topologySpreadConstraints }}
  {{- toYaml $v.brokers.topologySpreadConstraints | nindent 2 }}
{{- else }}
  {{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
  - maxSkew: 1
    topologyKey: {{ $key }}
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "aloft.selectorLabels" $root | nindent 8 }}
        app.kubernetes.io/component: {{ $.role }}
  {{- end }}
{{- end }}
containers:
  - name: {{ .role }}
    image: {{ include "aloft.image" $root }}
    imagePullPolicy: {{ $v.image.pullPolicy }}
    command: ["/bin/sh", "/etc/aloft/start.sh"]
    env:
      - name: ALOFT_ROLE
        value: {{ .role }}
      - name: ALOFT_ENTRYPOINT
        value: {{ $v.image.entrypoint | quote }}
      - name: ALOFT_NODE_ID_OFFSET
        value: {{ $p.nodeIdOffset | quote }}
      - name: POD_NAME
        valueFrom:
          fieldRef:
            fieldPath: metadata.name
      - name: POD_NAMESPACE
        valueFrom:
          fieldRef:
            fieldPath: metadata.namespace
      - name: HOST_IP
        valueFrom:
          fieldRef:
            fieldPath: status.hostIP
      - name: ALOFT_HEAP_OPTS
        value: {{ $v.brokers.heapOpts | quote }}
      - name: ALOFT_GC_OPTS
        value: {{ $v.brokers.gcOpts | quote }}
      - name: ALOFT_JVM_OPTS
        value: {{ $v.brokers.jvmOpts | quote }}
      {{- if $broker }}
      {{- if eq $v.controller.mode "dedicated" }}
      - name: ALOFT_PROP_process_roles
        value: broker
      {{- end }}
      - name: ALOFT_PROP_advertised_listeners
        value: "PLAINTEXT://$(POD_NAME).{{ include "aloft.headless" $root }}.$(POD_NAMESPACE).svc.{{ $v.clusterDomain }}:{{ $v.brokers.port }}"
      {{- if eq $v.brokers.rack.source "topologyLabel" }}
      - name: ALOFT_PROP_broker_rack
        valueFrom:
          fieldRef:
            fieldPath: metadata.labels['topology.kubernetes.io/zone']
      {{- end }}
      {{- else }}
      - name: ALOFT_PROP_process_roles
        value: controller
      {{- end }}
      {{- if and $v.objectStorage.existingSecret (eq $v.objectStorage.type "s3") }}
      - name: AWS_ACCESS_KEY_ID
        valueFrom:
          secretKeyRef:
            name: {{ $v.objectStorage.existingSecret }}
            key: {{ $v.objectStorage.accessKeyIdKey }}
      - name: AWS_SECRET_ACCESS_KEY
        valueFrom:
          secretKeyRef:
            name: {{ $v.objectStorage.existingSecret }}
            key: {{ $v.objectStorage.secretAccessKeyKey }}
      {{- end }}
    ports:
      {{- if $broker }}
      - name: kafka
        containerPort: {{ $v.brokers.port }}
      {{- end }}
      - name: controller
        containerPort: {{ $v.controller.port }}
      - name: metrics
        containerPort: {{ $v.brokers.metricsPort }}
    readinessProbe:
      httpGet:
        path: /readyz
        port: metrics
      {{- toYaml $v.brokers.readinessProbe | nindent 6 }}
    livenessProbe:
      httpGet:
        path: /healthz
        port: metrics
      {{- toYaml $v.brokers.livenessProbe | nindent 6 }}
    lifecycle:
      # A pause before SIGTERM so the pod leaves Service endpoints first; SIGTERM then starts the
      # broker's graceful drain (partitions move, WAL tail uploaded, broker leaves).
      preStop:
        sleep:
          seconds: {{ $v.brokers.preStopSleepSeconds }}
    {{- with $p.resources }}
    resources:
      {{- toYaml . | nindent 6 }}
    {{- end }}
    securityContext:
      {{- toYaml $v.brokers.securityContext | nindent 6 }}
    volumeMounts:
      - name: config
        mountPath: /etc/aloft
        readOnly: true
      - name: data
        mountPath: /var/lib/aloft/data
      {{- if and $broker (eq $v.wal.mode "filesystem") }}
      - name: wal
        mountPath: /var/lib/aloft/wal
      {{- end }}
    {{- if and $broker (eq $v.wal.mode "block") }}
    volumeDevices:
      - name: wal
        devicePath: /dev/aloft-wal
    {{- end }}
volumes:
  - name: config
    configMap:
      name: {{ include "aloft.fullname" $root }}-config
      defaultMode: 0555
{{- end }}

{{/* A volumeClaimTemplate: (dict "root" $ "name" N "size" S "storageClassName" C "block" BOOL "component" R). */}}
{{- define "aloft.pvc" -}}
- metadata:
    name: {{ .name }}
    labels:
      {{- include "aloft.selectorLabels" .root | nindent 6 }}
      app.kubernetes.io/component: {{ .component }}
  spec:
    accessModes: [ReadWriteOnce]
    {{- if .block }}
    volumeMode: Block
    {{- else }}
    volumeMode: Filesystem
    {{- end }}
    {{- if .storageClassName }}
    storageClassName: {{ .storageClassName | quote }}
    {{- end }}
    resources:
      requests:
        storage: {{ .size }}
{{- end }}
