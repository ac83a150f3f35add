import SharedTestSupport
import Foundation

/// A throwaway directory with the dev JWT key pair (`sightscreen dev-keys`), and helpers to start
/// the real api against the real servers with it and mint tokens (`sightscreen token`).
struct DevAuth: Sendable {
    let directory: URL
    var keysDirectory: URL { directory.appendingPathComponent("dev-keys") }
    var jwks: String { keysDirectory.appendingPathComponent("jwks.json").path }

    static func make() async throws -> DevAuth {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("security-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let auth = DevAuth(directory: directory)
        _ = try await ServiceProcess.output("sightscreen", ["dev-keys"], environment: ["DEV_KEYS_DIR": auth.keysDirectory.path])
        return auth
    }

    /// A valid access token for `user` from the dev key.
    func token(_ user: String) async throws -> String {
        try await ServiceProcess.output("sightscreen", ["token", "--user", user], environment: ["DEV_KEYS_DIR": keysDirectory.path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts the api on a free port with debug logging; returns it once /health answers.
    func startAPI() async throws -> (ServiceProcess, UInt16) {
        let port = try FreePort.pick()
        let api = try ServiceProcess("api", environment: [
            "HTTP_PORT": String(port), "AUTH_JWKS_PATH": jwks, "LOG_LEVEL": "debug", "SHUTDOWN_GRACE_MS": "2000",
            "API_RATE_LIMIT_PER_MINUTE": "0", "METRICS_PORT": "0",
        ], directory: directory)
        do {
            try await ServiceProcess.waitForHTTP(port: port, path: "/health")
        } catch {
            await api.stop()
            throw ServiceProcess.Missing(description: "\(error); api log: \(api.log.suffix(3000)) (start the servers with scripts/stack servers)")
        }
        return (api, port)
    }
}
