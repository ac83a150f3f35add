import SharedTestSupport
import APNs
import APNsMock
import Contracts
import Foundation
import Kafka
import Runtime
import Spawning
import Testing

/// The built `apns-sender` executable (next to the test bundle) against the real broker and an
/// in-process mock-apns over TLS.
@Suite(.timeLimit(.minutes(2))) struct SenderProcessTests {
    static func executable(_ name: String) throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidate = directory
        while candidate.path != "/" {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            candidate = candidate.deletingLastPathComponent()
        }
        throw SenderTestFailure(description: "\(name) is not built next to \(directory.path): run `swift build --build-tests`")
    }

    /// One running apns-sender process; stderr goes to a file (read at the end).
    final class SenderProcess {
        let process: Subprocess
        let port: UInt16
        let logFile: String

        init(environment: [String: String]) throws {
            port = try FreePort.pick()
            logFile = SenderFixtures.directory + "/sender-\(UUID().uuidString.prefix(8)).log"
            _ = FileManager.default.createFile(atPath: logFile, contents: nil)
            var env = ChildEnvironment.supervised(environment)
            env["HTTP_PORT"] = String(port)
            let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
            process = try Subprocess(executable: try SenderProcessTests.executable("apns-sender").path, environment: env,
                                     standardOutput: .null, standardError: .file(errors))
            try? errors.close()  // the child has its own copy
        }

        var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

        func waitUntilReady(timeout: Duration = .seconds(30)) async throws {
            try await eventually("apns-sender /ready (log: \(log.suffix(2000)))", within: timeout, every: .milliseconds(50)) {
                guard process.isRunning else { throw SenderTestFailure(description: "apns-sender exited: \(log.suffix(2000))") }
                return (try? await LocalHTTP.get(port: port, path: "/ready", waitUpTo: .milliseconds(200)).status) == 200
            }
        }

        func waitForExit(timeout: Duration) async throws -> Int32 {
            guard let ended = await process.waitForExit(timeout: timeout) else {
                throw SenderTestFailure(description: "apns-sender did not exit within \(timeout): \(log.suffix(2000))")
            }
            return ended.status
        }

        func kill(_ signal: Int32) { process.send(signal) }

        deinit { process.terminate() }
    }

    static func environment(mockPort: Int, jobs: String, invalid: String, dead: String, group: String) -> [String: String] {
        [
            "APNS_TEAM_ID": SenderFixtures.teamID, "APNS_KEY_ID": SenderFixtures.keyID, "APNS_KEY_PATH": SenderFixtures.keyFile,
            "APNS_BUNDLE_ID": SenderFixtures.bundleID, "APNS_PRODUCTION_HOST": "127.0.0.1", "APNS_PRODUCTION_PORT": String(mockPort),
            "APNS_SANDBOX_HOST": "127.0.0.1", "APNS_SANDBOX_PORT": String(mockPort),
            "APNS_CA_FILE": SenderFixtures.certificate.certificateFile, "APNS_CONNECTIONS": "1", "APNS_MAX_STREAMS": "10",
            "APNS_RETRY_BASE_MS": "20", "APNS_RETRY_MAX_MS": "200", "APNS_SENDER_JOBS_TOPIC": jobs,
            "APNS_SENDER_TOKEN_INVALID_TOPIC": invalid, "APNS_SENDER_DEAD_TOPIC": dead, "APNS_SENDER_GROUP": group,
            "KAFKA_BROKERS": SenderFixtures.brokers, "KAFKA_SESSION_TIMEOUT_MS": "6000", "KAFKA_HEARTBEAT_INTERVAL_MS": "500",
            "SHUTDOWN_GRACE_MS": "5000", "LOG_LEVEL": "debug",
        ]
    }

    /// Fresh one-partition jobs, token-invalid and dead topics, and a fresh group name.
    static func topics(_ admin: KafkaAdmin, prefix: String) async throws -> (jobs: String, invalid: String, dead: String, group: String) {
        let jobs = SenderFixtures.unique("\(prefix)-jobs")
        let invalid = SenderFixtures.unique("\(prefix)-invalid")
        let dead = SenderFixtures.unique("\(prefix)-dead")
        try await admin.createTopics(
            [KafkaTopicSpec(name: jobs, partitions: 1), KafkaTopicSpec(name: invalid, partitions: 1), KafkaTopicSpec(name: dead, partitions: 1)],
            timeout: .seconds(10))
        return (jobs, invalid, dead, SenderFixtures.unique(prefix))
    }

    @Test func killMinus9DuringAJobThenRestartAnswersEveryTargetAtLeastOnce() async throws {
        let admin = try await SenderFixtures.requireBroker()
        let (jobs, invalid, dead, group) = try await Self.topics(admin, prefix: "sender-kill")
        // 10 streams and 200 ms per answer: 300 targets take about 6 s.
        let mock = try SenderFixtures.mock(faults: MockAPNsFaults(latencyMilliseconds: 200))
        defer { mock.stop() }
        let environment = Self.environment(mockPort: mock.port, jobs: jobs, invalid: invalid, dead: dead, group: group)
        let producer = try SenderFixtures.producer()
        let job = SenderFixtures.job(targets: (0..<300).map { _ in SenderFixtures.target() })

        let first = try SenderProcess(environment: environment)
        try await first.waitUntilReady()
        _ = try await producer.send(topic: jobs, key: "m1:0", value: try MessageCodec.encode(job))
        try await eventually("the first pushes of the job", within: .seconds(20), every: .milliseconds(50)) { mock.counters.accepted >= 20 }
        first.kill(SIGKILL)
        #expect(try await first.waitForExit(timeout: .seconds(5)) == SIGKILL)
        let deliveredBeforeKill = Set(mock.deliveries().map(\.token))
        #expect(deliveredBeforeKill.count < 300, "killed mid-job")
        let committedAfterKill = try await admin.committedOffsets(group: group, topics: [jobs], timeout: .seconds(15))
        #expect(committedAfterKill.values.reduce(0, +) == 0, "nothing committed before the job finished")

        mock.setFaults(MockAPNsFaults())
        let second = try SenderProcess(environment: environment)
        try await eventually("every target answered after the restart", within: .seconds(60), every: .milliseconds(50)) {
            Set(mock.deliveries().map(\.token)).count == 300
        }
        try await eventually("the job committed", within: .seconds(20), every: .milliseconds(50)) {
            try await admin.committedOffsets(group: group, topics: [jobs], timeout: .seconds(15)).values.reduce(0, +) == 1
        }
        for target in job.targets {
            let received = mock.deliveries(token: target.token)
            #expect(received.count >= 1)
            #expect(received.allSatisfy { $0.apnsID == APNsID.derive(jobID: job.jobId, token: target.token) }, "replays reuse the apns-id")
        }
        let metrics = try await LocalHTTP.get(port: second.port, path: "/metrics")
        #expect(metrics.body.contains(#"apns_sender_jobs_total{result="delivered"} 1"#))
        second.kill(SIGTERM)
        #expect(try await second.waitForExit(timeout: .seconds(20)) == 0)
        let log = first.log + second.log
        #expect(log.contains(#""event":"started""#))
        #expect(!log.lowercased().contains("bearer"))
        let keyLines = SenderFixtures.privateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        for line in keyLines { #expect(!log.contains(line)) }
        try? await producer.shutdown(timeout: .seconds(5))
    }

    /// kill -9 in the middle of a job with progress marks every 10 targets (issue 42): the restarted sender reads the
    /// marks and sends again only what they do not cover — the requests on the wire at the kill and the chunk being
    /// answered — not the ~100 targets answered before it (without marks all of them come twice). Two tokens APNs
    /// refused before the kill are not sent again either: their TokenInvalid records come from the marks.
    @Test func killMinus9MidJobThenRestartSendsOnlyWhatItsProgressMarksDoNotCover() async throws {
        let admin = try await SenderFixtures.requireBroker()
        let (jobs, invalid, dead, group) = try await Self.topics(admin, prefix: "sender-marks")
        let progress = SenderFixtures.unique("sender-marks-progress")
        try await admin.createTopics([KafkaTopicSpec(name: progress, partitions: 1)], timeout: .seconds(10))
        // 10 streams and 200 ms per answer: 50 answers a second, a chunk of 10 marked every 200 ms.
        let mock = try SenderFixtures.mock(faults: MockAPNsFaults(latencyMilliseconds: 200))
        defer { mock.stop() }
        var environment = Self.environment(mockPort: mock.port, jobs: jobs, invalid: invalid, dead: dead, group: group)
        environment["APNS_SENDER_PROGRESS_TOPIC"] = progress
        environment["APNS_SENDER_PROGRESS_CHUNK"] = "10"
        let producer = try SenderFixtures.producer()
        let job = SenderFixtures.job(targets: (0..<300).map { _ in SenderFixtures.target() })
        let refused = [job.targets[0].token, job.targets[1].token]
        for token in refused { mock.markUnregistered(token) }

        let first = try SenderProcess(environment: environment)
        try await first.waitUntilReady()
        _ = try await producer.send(topic: jobs, key: "m1:0", value: try MessageCodec.encode(job))
        try await eventually("100 pushes of the job", within: .seconds(30), every: .milliseconds(20)) { mock.counters.accepted >= 100 }
        first.kill(SIGKILL)
        #expect(try await first.waitForExit(timeout: .seconds(5)) == SIGKILL)
        let beforeKill = Set(mock.deliveries().map(\.token))
        #expect(beforeKill.count >= 100 && beforeKill.count < 298, "killed mid-job")

        mock.setFaults(MockAPNsFaults())
        let second = try SenderProcess(environment: environment)
        try await eventually("every target answered after the restart", within: .seconds(60), every: .milliseconds(50)) {
            Set(mock.deliveries().map(\.token)).count == 298
        }
        try await eventually("the job committed", within: .seconds(20), every: .milliseconds(50)) {
            try await admin.committedOffsets(group: group, topics: [jobs], timeout: .seconds(15)).values.reduce(0, +) == 1
        }
        let twice = job.targets.filter { mock.deliveries(token: $0.token).count > 1 }.count
        // At the kill: up to 10 requests on the wire, up to 10 answered in the chunk not yet marked, and a mark or two
        // on its way to the broker.
        #expect(twice <= 40, "\(twice) targets sent twice of \(beforeKill.count) answered before the kill; progress in the logs: \((first.log + second.log).split(separator: "\n").filter { $0.contains("progress") }.joined(separator: "\n").suffix(3000))")
        for token in refused { #expect(mock.refusals(token: token).count == 1, "a refused token is not sent again") }
        let metrics = try await LocalHTTP.get(port: second.port, path: "/metrics").body
        let reused = metrics.split(separator: "\n").first { $0.hasPrefix("apns_sender_progress_reused_targets_total ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        #expect(reused >= Double(beforeKill.count - 40), "targets taken from the marks: \(reused)")
        #expect(metrics.contains("apns_sender_token_invalid_total 2"), "the refusals' TokenInvalid records produced from the marks")
        #expect(metrics.contains(#"apns_sender_jobs_total{result="delivered"} 1"#))
        second.kill(SIGTERM)
        #expect(try await second.waitForExit(timeout: .seconds(20)) == 0)
        try? await producer.shutdown(timeout: .seconds(5))
    }

    /// SIGTERM in the middle of a job with time to finish it: the job completes (every target
    /// once), its offset is committed, the process exits 0; a restarted sender does not send it
    /// again (a sentinel job, delivered after the restart, proves the restart read past it).
    @Test func sigtermDuringAJobFinishesAndCommitsItAndARestartDoesNotResendIt() async throws {
        let admin = try await SenderFixtures.requireBroker()
        let (jobs, invalid, dead, group) = try await Self.topics(admin, prefix: "sender-term")
        // 10 streams and 100 ms per answer: 200 targets take about 2 s; the grace period is 30 s.
        let mock = try SenderFixtures.mock(faults: MockAPNsFaults(latencyMilliseconds: 100))
        defer { mock.stop() }
        var environment = Self.environment(mockPort: mock.port, jobs: jobs, invalid: invalid, dead: dead, group: group)
        environment["SHUTDOWN_GRACE_MS"] = "30000"
        let producer = try SenderFixtures.producer()
        let job = SenderFixtures.job(targets: (0..<200).map { _ in SenderFixtures.target() })

        let first = try SenderProcess(environment: environment)
        try await first.waitUntilReady()
        _ = try await producer.send(topic: jobs, key: "m1:0", value: try MessageCodec.encode(job))
        try await eventually("the first pushes of the job", within: .seconds(20), every: .milliseconds(50)) { mock.counters.accepted >= 10 }
        first.kill(SIGTERM)
        #expect(try await first.waitForExit(timeout: .seconds(40)) == 0, "log: \(first.log.suffix(1500))")
        for target in job.targets {
            #expect(mock.deliveries(token: target.token).count == 1, "every target of the in-flight job answered once")
        }
        let committed = try await admin.committedOffsets(group: group, topics: [jobs], timeout: .seconds(15))
        #expect(committed.values.reduce(0, +) == 1, "the finished job was committed before the exit")
        #expect(first.log.contains(#""event":"service_stopping""#))

        let second = try SenderProcess(environment: environment)
        try await second.waitUntilReady()
        let sentinel = SenderFixtures.job(targets: [SenderFixtures.target()])
        _ = try await producer.send(topic: jobs, key: "m1:0", value: try MessageCodec.encode(sentinel))
        try await eventually("the sentinel job delivered", within: .seconds(30), every: .milliseconds(50)) {
            !mock.deliveries(token: sentinel.targets[0].token).isEmpty
        }
        for target in job.targets {
            #expect(mock.deliveries(token: target.token).count == 1, "the restart did not send the committed job again")
        }
        second.kill(SIGTERM)
        #expect(try await second.waitForExit(timeout: .seconds(20)) == 0)
        try? await producer.shutdown(timeout: .seconds(5))
    }

    @Test func missingAPNsSettingsFailStartNamingTheVariable() async throws {
        var env = ChildEnvironment.supervised()
        for name in ["APNS_TEAM_ID", "APNS_KEY_ID", "APNS_KEY_PATH", "APNS_BUNDLE_ID"] { env[name] = nil }
        env["HTTP_PORT"] = "0"
        let process = try Subprocess(executable: try Self.executable("apns-sender").path, environment: env,
                                     standardOutput: .null, standardError: .pipe)
        if await process.waitForExit(timeout: .seconds(10)) == nil { process.terminate() }
        #expect(await process.waitForExit() == .exited(78))
        let stderr = String(decoding: await process.standardError!.readAll(), as: UTF8.self)
        #expect(stderr.contains("APNS_TEAM_ID"))
    }
}
