import Foundation
import SharedTestSupport
import Testing

/// The deployment files (deploy/, docker-compose.yml) checked against the code by
/// scripts/validate-deploy: offline, no container engine. See that script for the full list.
@Suite("Deploy validation")
struct DeployValidationTests {
    static let setupHint = "run scripts/setup (it installs python3 packages PyYAML and kubernetes-validate)"

    @Test("python3 with PyYAML and kubernetes-validate is installed")
    func pythonToolsPresent() async throws {
        let result = try await ScriptRunner.output(["python3", "-c", "import yaml, jsonschema, kubernetes_validate"])
        #expect(result.status != 127, "python3 is missing: \(Self.setupHint)")
        #expect(result.status == 0, "PyYAML or kubernetes-validate is missing: \(Self.setupHint)\n\(result.output)")
    }

    @Test("scripts/validate-deploy passes: Dockerfile packages, compose, Prometheus, Grafana, Kubernetes")
    func validateDeployPasses() async throws {
        let result = try await ScriptRunner.output(["python3", "scripts/validate-deploy", "--quiet"])
        #expect(result.status != 127, "python3 is missing: \(Self.setupHint)")
        #expect(result.status != 2, "validate-deploy cannot run: \(Self.setupHint)\n\(result.output)")
        #expect(result.status == 0, "validate-deploy found problems (exit \(result.status)):\n\(result.output)")
        #expect(result.output.contains("checks passed, 0 failed"), "unexpected report:\n\(result.output)")
    }

    @Test("validate-deploy fails on drift: a compose variable no code reads is reported")
    func validateDeployDetectsDrift() async throws {
        // A copy of the repository files the script reads, with one unknown variable added to the api.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("deploy-drift-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = FileManager.default
        try files.createDirectory(at: root, withIntermediateDirectories: true)
        for item in ["Package.swift", "Shared", "Services", "Benchmarks", "Tests", "deploy", "scripts", "docs", "docker-compose.yml"] {
            let source = ScriptRunner.repositoryRoot.appendingPathComponent(item)
            guard files.fileExists(atPath: source.path) else { continue }
            try files.copyItem(at: source, to: root.appendingPathComponent(item))
        }
        let compose = root.appendingPathComponent("docker-compose.yml")
        let text = try String(contentsOf: compose, encoding: .utf8)
        let drifted = text.replacingOccurrences(of: "    command: [\"api\"]\n    environment:\n",
                                                with: "    command: [\"api\"]\n    environment:\n      NOT_READ_BY_ANYTHING: \"1\"\n")
        try #require(drifted != text, "docker-compose.yml no longer has the api block this test edits")
        try drifted.write(to: compose, atomically: true, encoding: .utf8)
        let result = try await ScriptRunner.output(["python3", "scripts/validate-deploy", "--quiet", "--root", root.path])
        #expect(result.status == 1, "expected a failure, got exit \(result.status):\n\(result.output)")
        #expect(result.output.contains("api: NOT_READ_BY_ANYTHING is read by NOTHING"), "\(result.output)")
    }
}
