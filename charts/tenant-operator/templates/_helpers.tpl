{{/*
tenant-operator.name is the chart name, or nameOverride.
*/}}
{{- define "tenant-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
tenant-operator.fullname is the name of every resource of the release:
fullnameOverride, or "<release>-<chart>" (just the release name when it
already contains the chart name), truncated to 63 characters.
*/}}
{{- define "tenant-operator.fullname" -}}
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

{{/*
tenant-operator.chart is "<chart>-<version>" for the helm.sh/chart label.
*/}}
{{- define "tenant-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
tenant-operator.labels are the standard app.kubernetes.io labels of every resource.
*/}}
{{- define "tenant-operator.labels" -}}
helm.sh/chart: {{ include "tenant-operator.chart" . }}
{{ include "tenant-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kubetenant
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
tenant-operator.selectorLabels select the operator pods; they never change
after install (a Deployment's selector is immutable).
*/}}
{{- define "tenant-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tenant-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controller
{{- end }}

{{/*
tenant-operator.serviceAccountName is the ServiceAccount the operator runs as.
*/}}
{{- define "tenant-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tenant-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
tenant-operator.image is the image reference: repository with the digest when
set, else the tag (default: v<appVersion>, the release tag the image is
published under; ADR 0121).
*/}}
{{- define "tenant-operator.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default (printf "v%s" .Chart.AppVersion) .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
tenant-operator.validate fails the render on combinations the schema cannot
express, with a message saying what to change.
*/}}
{{- define "tenant-operator.validate" -}}
{{- if and .Values.caBundle.configMapName .Values.caBundle.secretName }}
{{- fail "caBundle: set configMapName or secretName, not both" }}
{{- end }}
{{- if and (or .Values.caBundle.configMapName .Values.caBundle.secretName) (not .Values.provisioner.url) }}
{{- fail "caBundle is set but provisioner.url is empty: the operator's CA bundle is for an https provisioner" }}
{{- end }}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) }}
{{- fail (printf "replicaCount is %d but leaderElection.enabled is false: two operators would reconcile the same tenants at once; enable leader election or set replicaCount to 1" (int .Values.replicaCount)) }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) }}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled: there is no metrics endpoint to scrape" }}
{{- end }}
{{- if and .Values.provisioner.tokenSecret.name (not .Values.provisioner.url) }}
{{- fail "provisioner.tokenSecret.name is set but provisioner.url is empty: set the provisioner URL or drop the token Secret" }}
{{- end }}
{{- end }}

{{/*
tenant-operator.caBundleVolume is the volume of caBundle, from its ConfigMap
or Secret, holding only the bundle's key; nothing when caBundle is unset.
*/}}
{{- define "tenant-operator.caBundleVolume" -}}
{{- if .Values.caBundle.configMapName }}
- name: ca-bundle
  configMap:
    name: {{ .Values.caBundle.configMapName }}
    items:
      - key: {{ .Values.caBundle.key }}
        path: {{ .Values.caBundle.key }}
{{- else if .Values.caBundle.secretName }}
- name: ca-bundle
  secret:
    secretName: {{ .Values.caBundle.secretName }}
    items:
      - key: {{ .Values.caBundle.key }}
        path: {{ .Values.caBundle.key }}
{{- end }}
{{- end }}
