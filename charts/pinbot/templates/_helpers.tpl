{{/*
pinbot.name is the chart name, or nameOverride.
*/}}
{{- define "pinbot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
pinbot.fullname is the name of every resource of the release:
fullnameOverride, or "<release>-<chart>" (just the release name when it
already contains the chart name), truncated to 63 characters.
*/}}
{{- define "pinbot.fullname" -}}
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
pinbot.chart is "<chart>-<version>" for the helm.sh/chart label.
*/}}
{{- define "pinbot.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
pinbot.labels are the standard app.kubernetes.io labels of every resource.
*/}}
{{- define "pinbot.labels" -}}
helm.sh/chart: {{ include "pinbot.chart" . }}
{{ include "pinbot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kubetenant
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
pinbot.selectorLabels select the pinbot pods; they never change
after install (a Deployment's selector is immutable).
*/}}
{{- define "pinbot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "pinbot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: webhook
{{- end }}

{{/*
pinbot.serviceAccountName is the ServiceAccount pinbot runs as.
*/}}
{{- define "pinbot.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "pinbot.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
pinbot.image is the image reference: repository with the digest when
set, else the tag (default: v<appVersion>, the release tag the image is
published under; ADR 0121).
*/}}
{{- define "pinbot.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default (printf "v%s" .Chart.AppVersion) .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
pinbot.validate fails the render, with a message saying what to set, when a
value pinbot cannot start without is missing.
*/}}
{{- define "pinbot.validate" -}}
{{- if and .Values.caBundle.configMapName .Values.caBundle.secretName }}
{{- fail "caBundle: set configMapName or secretName, not both" }}
{{- end }}
{{- if not .Values.github.appID }}
{{- fail "github.appID is required: the GitHub App's numeric id (--app-id)" }}
{{- end }}
{{- if not (include "pinbot.privateKeySecret" .) }}
{{- fail "github.existingSecret is required: an existing Secret holding the App's PEM private key and the webhook secret (or github.privateKey.secretName for the key alone)" }}
{{- end }}
{{- if not (include "pinbot.webhookSecret" .) }}
{{- fail "github.existingSecret is required: an existing Secret holding the webhook secret (or github.webhookSecret.secretName for it alone)" }}
{{- end }}
{{- end }}

{{/*
pinbot.privateKeySecret and pinbot.webhookSecret name the Secrets the two
files come from: github.existingSecret, unless the older per-file name
(github.privateKey.secretName, github.webhookSecret.secretName; kept as
aliases) is set, which wins for its file.
*/}}
{{- define "pinbot.privateKeySecret" -}}
{{- .Values.github.privateKey.secretName | default .Values.github.existingSecret }}
{{- end }}
{{- define "pinbot.webhookSecret" -}}
{{- .Values.github.webhookSecret.secretName | default .Values.github.existingSecret }}
{{- end }}

{{/*
pinbot.caBundleVolume is the volume of caBundle, from its ConfigMap or
Secret, holding only the bundle's key; nothing when caBundle is unset.
*/}}
{{- define "pinbot.caBundleVolume" -}}
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
