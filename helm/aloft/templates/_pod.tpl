{{/* The pod spec of a broker (role "broker") or a dedicated controller (role "controller").
     Called with (dict "root" $ "role" ROLE). */}}
{{- define "aloft.podSpec" -}}
{{- $root := .root }}
{{- $v := $root.Values }}
{{- $broker := eq .role "broker" }}
{{- $p := ternary $v.brokers $v.controller $broker }}
{{- $two := eq (include "aloft.twoListeners" $root) "true" }}
{{- $tls := eq (include "aloft.tls" $root) "true" }}
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
        value: "{{ if $two }}{{ include "aloft.internalAdvertised" (dict "root" $root "open" "$(") }},{{ end }}{{ include "aloft.clientListener" $root }}://$(POD_NAME).{{ include "aloft.headless" $root }}.$(POD_NAMESPACE).svc.{{ $v.clusterDomain }}:{{ $v.brokers.port }}"
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
      {{- /* Secrets reach the broker's properties through ALOFT_PROP_* (the entrypoint maps
           ALOFT_PROP_a_b_c to a.b.c), never through the ConfigMap. Controllers parse the same
           listener settings, so they get them too. */}}
      {{- if and $tls (eq $v.tls.format "keystore") }}
      {{- $k := $v.tls.keystore }}
      {{- range $prop, $key := dict "ssl_keystore_password" $k.keystorePasswordKey "ssl_key_password" $k.keyPasswordKey "ssl_truststore_password" $k.truststorePasswordKey }}
      {{- if $key }}
      - name: ALOFT_PROP_{{ $prop }}
        valueFrom:
          secretKeyRef:
            name: {{ $k.passwordSecret }}
            key: {{ $key }}
      {{- end }}
      {{- end }}
      {{- end }}
      {{- if and (eq (include "aloft.sasl" $root) "true") (has "PLAIN" $v.sasl.mechanisms) }}
      - name: ALOFT_PROP_listener_name_client_plain_sasl_jaas_config
        valueFrom:
          secretKeyRef:
            name: {{ $v.sasl.plain.existingSecret }}
            key: {{ $v.sasl.plain.jaasKey }}
      {{- end }}
    ports:
      {{- if $broker }}
      - name: kafka
        containerPort: {{ $v.brokers.port }}
      {{- if $two }}
      - name: internal
        containerPort: {{ $v.listeners.internal.port }}
      {{- end }}
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
      {{- if $tls }}
      # Beside /etc/aloft, not in it: a mount point inside a read-only volume cannot be created.
      - name: tls
        mountPath: /etc/aloft-tls
        readOnly: true
      {{- if eq $v.tls.format "pem" }}
      - name: tls-keystore
        mountPath: /var/run/aloft/tls
      {{- end }}
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
  {{- if $tls }}
  - name: tls
    secret:
      secretName: {{ $v.tls.existingSecret }}
      # Owner and group read (the group is fsGroup): the private key is not world-readable.
      defaultMode: 0440
  {{- if eq $v.tls.format "pem" }}
  # The PEM key store start.sh writes (key and chain in one file, as Kafka reads it): memory only.
  - name: tls-keystore
    emptyDir:
      medium: Memory
      sizeLimit: 1Mi
  {{- end }}
  {{- end }}
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
