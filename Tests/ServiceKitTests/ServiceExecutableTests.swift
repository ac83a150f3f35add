import SharedTestSupport
import Foundation
import Spawning
import Testing

/// Starts the real service executables (built next to the test bundle by `swift build --build-tests`).
@Suite struct ServiceExecutableTests {
    static let services = ["poller", "detector", "la-coordinator", "apns-sender", "api"]

    static func executable(_ name: String) throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidate = directory
        // The test bundle is <bin>/SightscreenPackageTests.xctest; executables are in <bin>.
        while candidate.path != "/" {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            candidate = candidate.deletingLastPathComponent()
        }
        throw ExecutableMissing(name: name, searchedFrom: directory.path)
    }

    struct TopicCreationFailed: Error, CustomStringConvertible {
        let description: String
    }

    struct ExecutableMissing: Error, CustomStringConvertible {
        let name: String
        let searchedFrom: String
        var description: String { "\(name) is not built next to \(searchedFrom): run `swift build --build-tests` (scripts/test does)" }
    }

    struct Finished {
        let status: Int32
        let stderr: String
    }

    static func run(_ name: String, environment: [String: String], signalAfter: Duration? = nil, timeout: Duration = .seconds(60)) async throws -> Finished {
        var env = ChildEnvironment.supervised()
        if name == "api" { env.merge(try await devJWKS()) { _, new in new } }
        env.merge(environment) { _, new in new }
        let process = try Subprocess(executable: try executable(name).path, environment: env, standardOutput: .null, standardError: .pipe)
        if let signalAfter {
            try await Task.sleep(for: signalAfter)
            process.send(SIGTERM)
        }
        var ended = await process.waitForExit(timeout: timeout)
        if ended == nil {
            process.send(SIGKILL)
            Issue.record("\(name) did not stop within \(timeout)")
            ended = await process.waitForExit()
        }
        let text = String(decoding: await process.standardError!.readAll(), as: UTF8.self)
        return Finished(status: ended?.status ?? -1, stderr: text)
    }

    @Test(arguments: services)
    func badConfigurationFailsStartNamingTheVariable(service: String) async throws {
        let finished = try await Self.run(service, environment: ["HTTP_PORT": "not-a-port"])
        #expect(finished.status == 78)
        #expect(finished.stderr.contains("HTTP_PORT"))
        #expect(finished.stderr.contains("not-a-port"))
        let badBrokers = try await Self.run(service, environment: ["HTTP_PORT": "0", "KAFKA_BROKERS": "nohostport"])
        #expect(badBrokers.status == 78)
        #expect(badBrokers.stderr.contains("KAFKA_BROKERS"))
    }

    @Test(arguments: services)
    func startsServesHealthMetricsReadyAndStopsCleanlyOnSIGTERM(service: String) async throws {
        var env = ChildEnvironment.supervised()
        // Port 0: the service binds a free port and logs it. A port picked here and bound later can be
        // taken in between by any outgoing connection of a suite running beside this one (stop 35's CI:
        // apns-sender could not bind, and the test saw only "connection refused").
        env["HTTP_PORT"] = "0"
        env["SHUTDOWN_GRACE_MS"] = "2000"
        // Its own leader lock and consumer group, so other suites running now cannot hold them.
        env["POLLER_LOCK_NAME"] = "executable-test-\(UUID().uuidString)"
        env["LA_MANAGEMENT_LOCK_NAME"] = "executable-test-\(UUID().uuidString)"
        env["DETECTOR_GROUP_ID"] = "executable-test-\(UUID().uuidString)"
        env["APNS_SENDER_GROUP"] = "executable-test-\(UUID().uuidString)"
        for group in ["LA_EVENTS_GROUP_ID", "LA_TOKEN_INVALID_GROUP_ID", "LA_RECORD_GROUP_ID"] { env[group] = "executable-test-\(UUID().uuidString)" }
        if service == "apns-sender" {
            env.merge(try await Self.devAPNsSettings()) { _, new in new }
            // Its own empty jobs topic: the shared push.jobs holds other suites' jobs, which would be
            // sent (to nowhere) and retried during the drain this test times.
            env["APNS_SENDER_JOBS_TOPIC"] = try await Self.emptyTopic()
        }
        if service == "api" {
            env.merge(try await Self.devJWKS()) { _, new in new }
            env["METRICS_PORT"] = "0"  // the api's metrics are on their own listener, never the public port
        }
        let log = try ServiceLogFile(service: service)
        let process = try Subprocess(executable: try Self.executable(service).path, environment: env, standardError: .file(log.handle))
        defer { process.terminate() }

        let port: UInt16
        do {
            port = try await log.startedPort(of: process, waitUpTo: .seconds(60))
            let health = try await LocalHTTP.get(port: port, path: "/health", waitUpTo: .seconds(60))
            #expect(health.status == 200)
            #expect(health.body.contains(#""service":"\#(service)""#))
            // Services become ready when their dependencies are (consumer group joined, leader lock held…).
            let ready = try await LocalHTTP.waitForStatus(200, port: port, path: "/ready", waitUpTo: .seconds(60))
            #expect(ready.status == 200, "never ready: \(ready.body)")
            let metricsPort = service == "api" ? try await log.startedPort(of: process, waitUpTo: .seconds(5), field: "metrics_port") : port
            let metrics = try await LocalHTTP.get(port: metricsPort, path: "/metrics")
            #expect(metrics.status == 200)
            if metricsPort != port {
                #expect(try await LocalHTTP.get(port: port, path: "/metrics").status == 404, "no /metrics on the public port")
                #expect(try await LocalHTTP.get(port: metricsPort, path: "/ready").status == 200)
            }
            #expect(metrics.body.contains("# TYPE http_requests_total counter"))
        } catch {
            // Say why: the process's own log (it may have exited) is the only witness.
            let running = process.isRunning
            process.send(SIGKILL)
            let ended = await process.waitForExit()
            let exit = running ? "still running (killed)" : "exited with \(ended)"
            Issue.record("\(service) did not answer: \(error); it \(exit); stderr: \(log.text().suffix(4000))")
            return
        }

        process.send(SIGTERM)
        var ended = await process.waitForExit(timeout: .seconds(60))
        #expect(ended != nil, "\(service) ignored SIGTERM")
        if ended == nil {
            process.send(SIGKILL)
            ended = await process.waitForExit()
        }
        let stderr = log.text()
        #expect(ended == .exited(0), "stderr: \(stderr)")
        #expect(stderr.contains(#""event":"started""#))
        #expect(stderr.contains(#""event":"stopped""#))
    }

    /// A throwaway APNs key (made by `mock-apns --generate-dev-key`) and hosts nobody listens on:
    /// enough for apns-sender to start, sign its provider token and become ready.
    static func devAPNsSettings() async throws -> [String: String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-key-\(UUID().uuidString)")
        let generator = try Subprocess(executable: try executable("mock-apns").path,
                                       arguments: ["--generate-dev-key", directory.path, "--key-id", "TESTKEY001"], standardOutput: .null)
        guard await generator.waitForExit() == .exited(0) else { throw ExecutableMissing(name: "mock-apns --generate-dev-key", searchedFrom: directory.path) }
        return [
            "APNS_TEAM_ID": "TEAM000001", "APNS_KEY_ID": "TESTKEY001", "APNS_BUNDLE_ID": "app.sightscreen.test",
            "APNS_KEY_PATH": directory.appendingPathComponent("AuthKey_TESTKEY001.p8").path,
            "APNS_PRODUCTION_HOST": "127.0.0.1", "APNS_PRODUCTION_PORT": "1",
            "APNS_SANDBOX_HOST": "127.0.0.1", "APNS_SANDBOX_PORT": "1",
        ]
    }

    /// A new empty one-partition topic, made with `sightscreen topics create --config`.
    static func emptyTopic() async throws -> String {
        let name = "executable-test-\(UUID().uuidString.prefix(8).lowercased())"
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).conf")
        try Data("\(name) 1\n".utf8).write(to: config)
        let log = try ServiceLogFile(service: "topics-create")
        let creator = try Subprocess(executable: try executable("sightscreen").path, arguments: ["topics", "create", "--config", config.path],
                                     standardOutput: .null, standardError: .file(log.handle))
        let ended = await creator.waitForExit()
        guard ended == .exited(0) else {
            throw TopicCreationFailed(description: "sightscreen topics create \(name) \(ended) (Kafka down? scripts/stack up): \(log.text().suffix(2000))")
        }
        return name
    }

    /// A throwaway JWT key set made by `sightscreen dev-keys`, for the api.
    static func devJWKS() async throws -> [String: String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dev-keys-\(UUID().uuidString)")
        var env = ProcessInfo.processInfo.environment
        env["DEV_KEYS_DIR"] = directory.path
        let generator = try Subprocess(executable: try executable("sightscreen").path, arguments: ["dev-keys"], environment: env,
                                       standardOutput: .null)
        guard await generator.waitForExit() == .exited(0) else { throw ExecutableMissing(name: "sightscreen dev-keys", searchedFrom: directory.path) }
        return ["AUTH_JWKS_PATH": directory.appendingPathComponent("jwks.json").path]
    }

    /// `sightscreen kafka-check --config F`: its exit status and what it printed.
    static func kafkaCheck(config lines: String) async throws -> (status: Int32, output: String) {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("kafka-check-\(UUID().uuidString.prefix(8)).conf")
        try Data(lines.utf8).write(to: config)
        let (status, output) = try await ChildProcess.run(
            try executable("sightscreen"),
            ["kafka-check", "--config", config.path, "--scratch-topic", "kafka-check-\(UUID().uuidString.prefix(8).lowercased())"])
        return (status, String(decoding: output, as: UTF8.self))
    }

    /// Issue 42 (item 5): the README checks a new cluster before `topics apply` creates its topics. None of the
    /// topics there yet is that step, a warning; some there and others missing is a broken deployment, a failure.
    @Test func kafkaCheckPassesANewClusterAndFailsAHalfMadeOne() async throws {
        let fresh = "fresh-\(UUID().uuidString.prefix(8).lowercased())"
        let new = try await Self.kafkaCheck(config: "\(fresh)-a 3\n\(fresh)-b 3\n")
        #expect(new.status == 0, "\(new.output)")
        #expect(new.output.contains("none of the 2 topics") && !new.output.contains("FAIL"), "\(new.output)")
        let existing = try await Self.emptyTopic()
        let half = try await Self.kafkaCheck(config: "\(existing) 1\n\(fresh)-c 1\n")
        #expect(half.status == 1, "\(half.output)")
        #expect(half.output.contains("FAIL    topic \(fresh)-c is missing"), "\(half.output)")
    }

    @Test func anOldLibrdkafkaIsRefusedWithAFix() async throws {
        // Debian's librdkafka 2.0.2 is what the system path has; leaving out .local/lib loads it.
        let systemOnly = (ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"] ?? "")
            .split(separator: ":").filter { !$0.hasSuffix(".local/lib") }.joined(separator: ":")
        let finished = try await Self.run("poller", environment: ["HTTP_PORT": "0", "LD_LIBRARY_PATH": systemOnly])
        #expect(finished.status == 1)
        #expect(finished.stderr.contains("scripts/setup"))
    }
}
