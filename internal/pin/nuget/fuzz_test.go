package nuget

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

// FuzzResolveProjects resolves a project under Directory.Build.props,
// Directory.Packages.props and Directory.Build.targets.
func FuzzResolveProjects(f *testing.F) {
	f.Add([]byte(`<Project><PropertyGroup><V>13.0.1</V><v Condition="'$(V)' == ''">13.0.3</v><ManagePackageVersionsCentrally>true</ManagePackageVersionsCentrally></PropertyGroup></Project>`),
		[]byte(`<Project><ItemGroup><PackageVersion Include="Newtonsoft.Json" Version="$(V)" /></ItemGroup></Project>`),
		[]byte(`<Project Sdk="Microsoft.NET.Sdk"><Import Project="../x.props" /><ItemGroup><PackageReference Include="Newtonsoft.Json" /><PackageReference Include="Polly" Version="8.4.0" /></ItemGroup></Project>`),
		[]byte(`<Project><PropertyGroup><V>13.0.3</V></PropertyGroup><ItemGroup><PackageReference Update="Polly" Version="8.4.1" /></ItemGroup></Project>`))
	f.Fuzz(func(t *testing.T, props, packages, project, targets []byte) {
		manifesttest.CheckResolver(t, resolveProjects, map[string][]byte{"Directory.Build.props": props, "Directory.Packages.props": packages,
			"src/App/App.csproj": project, "Directory.Build.targets": targets, ".config/dotnet-tools.json": []byte(`{"tools":{}}`)})
	})
}

func FuzzDotnetTools(f *testing.F) {
	f.Add([]byte(`{"version":1,"isRoot":true,"tools":{"dotnet-ef":{"version":"8.0.4","commands":["dotnet-ef"]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pr, err := readDotnetTools(".config/dotnet-tools.json", data)
		if err == nil {
			for _, d := range pr.Deps {
				if d.Pkg == "" || d.Value == "" {
					t.Fatalf("bad tool %+v", d)
				}
			}
		}
	})
}
