import SharedTestSupport
import Contracts
import Foundation
import Kafka
import Runtime
import Testing

/// Runs the real api, mock-apns and apns-sender (debug logging) with dev keys, sends authenticated
/// requests (valid and forged tokens) and pushes, then greps every log line: no JWT, no private
/// key PEM and no base64 of the .p8 may appear.
@Suite("Secrets never reach the logs")
struct LogSecretsTests {
    static let brokers = ProcessInfo.processInfo.environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:19092"
    static let quiet = Logger(label: "security-tests", minimumLevel: .error, sink: LogSink { _ in })

    /// The base64 body of a PEM file (header and footer lines dropped), as one string and as lines.
    static func pemBody(_ path: String) throws -> (joined: String, lines: [String]) {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("-----") && !$0.isEmpty }
        return (lines.joined(), lines)
    }

    /// Lines that look like a JWT: `eyJ` then base64url, dot, base64url, dot.
    static func jwtShapes(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"#)
        let range = NSRange(text.startIndex..., in: text)
        return pattern.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
    }

    @Test func apnsKeyAndJWTsNeverAppearInTheLogsOfARealRun() async throws {
        let auth = try await DevAuth.make()
        let directory = auth.directory
        let apnsKeys = directory.appendingPathComponent("apns-key")
        _ = try await ServiceProcess.output("mock-apns", ["--generate-dev-key", apnsKeys.path, "--key-id", "SECKEY0001"])
        let p8 = apnsKeys.appendingPathComponent("AuthKey_SECKEY0001.p8").path
        let mockPort = try FreePort.pick()
        let mock = try ServiceProcess("mock-apns", arguments: [
            "--host", "127.0.0.1", "--port", String(mockPort), "--cert-dir", directory.appendingPathComponent("tls").path,
            "--key", apnsKeys.appendingPathComponent("AuthKey_SECKEY0001.pub.pem").path, "--key-id", "SECKEY0001",
            "--team-id", "TEAM000001", "--bundle-id", "app.sightscreen.test",
        ], environment: ["LOG_LEVEL": "debug"], directory: directory)
        try await mock.waitForLog("listening 127.0.0.1:")

        // apns-sender on its own topics and group.
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let topics = ["jobs", "invalid", "dead", "dead-letter"].map { "security-\($0)-\(suffix)" }
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: Self.brokers), logger: Self.quiet)
        do {
            try await admin.createTopics(topics.map { KafkaTopicSpec(name: $0, partitions: 1) }, timeout: .seconds(10))
        } catch {
            await mock.stop()
            throw ServiceProcess.Missing(description: "Kafka not usable at \(Self.brokers): start it with scripts/stack servers (\(error))")
        }
        let senderPort = try FreePort.pick()
        let sender = try ServiceProcess("apns-sender", environment: [
            "HTTP_PORT": String(senderPort), "LOG_LEVEL": "debug", "SHUTDOWN_GRACE_MS": "2000",
            "APNS_TEAM_ID": "TEAM000001", "APNS_KEY_ID": "SECKEY0001", "APNS_KEY_PATH": p8, "APNS_BUNDLE_ID": "app.sightscreen.test",
            "APNS_PRODUCTION_HOST": "127.0.0.1", "APNS_PRODUCTION_PORT": String(mockPort),
            "APNS_SANDBOX_HOST": "127.0.0.1", "APNS_SANDBOX_PORT": String(mockPort),
            "APNS_CA_FILE": directory.appendingPathComponent("tls/cert.pem").path,
            "APNS_SENDER_GROUP": "security-\(suffix)", "APNS_SENDER_JOBS_TOPIC": topics[0], "APNS_SENDER_TOKEN_INVALID_TOPIC": topics[1],
            "APNS_SENDER_DEAD_TOPIC": topics[2], "APNS_SENDER_DEAD_LETTER_TOPIC": topics[3],
        ], directory: directory)
        let (api, apiPort) = try await auth.startAPI()
        defer { Task { await api.stop(); await sender.stop(); await mock.stop() } }
        try await ServiceProcess.waitForHTTP(port: senderPort, path: "/ready", timeout: .seconds(60))

        // Authenticated requests, valid and forged.
        let user = "log-secrets-\(suffix)"
        let token = try await auth.token(user)
        let other = try await auth.token("log-secrets-other-\(suffix)")
        var usedTokens = [token, other]
        func call(_ method: String, _ path: String, _ bearer: String, _ json: [String: Any]? = nil) async throws -> WireResponse {
            var headers = ["Authorization": "Bearer \(bearer)"]
            var body: [UInt8] = []
            if let json {
                body = Array(try JSONSerialization.data(withJSONObject: json))
                headers["Content-Type"] = "application/json"
            }
            return try await RawHTTPClient.request(port: apiPort, method: method, path: path, headers: headers, body: body)
        }
        #expect(try await call("POST", "/devices", token, ["deviceId": "phone", "apnsEnvironment": "sandbox", "appVersion": "1.0",
                                                           "pushToStartToken": APITestHarness.hexToken()]).status == 200)
        #expect(try await call("GET", "/user/follows", token).status == 200)
        #expect(try await call("GET", "/matches", other).status == 200)
        _ = try await call("POST", "/user/follow/match", token, ["matchId": "log-secrets-\(suffix)"])
        let parts = token.split(separator: ".").map(String.init)
        let forged = [parts[0] + "." + parts[1] + ".AAAA", parts[0] + "." + parts[1] + ".", token + "x"]
        for bad in forged {
            #expect(try await call("GET", "/user/follows", bad).status == 401)
            usedTokens.append(bad)
        }

        // Pushes through apns-sender to mock-apns (each signed with a provider JWT made from the .p8).
        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: Self.brokers, clientId: "security-\(suffix)")
        producerConfiguration.messageTimeout = .seconds(15)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: Self.quiet)
        let now = Int64(Date().timeIntervalSince1970)
        for index in 0..<3 {
            let targets = (0..<4).map { device in
                PushTarget(token: APITestHarness.hexToken(length: 128), env: .production, userId: user, deviceId: "d\(device)")
            }
            let job = PushJob(
                jobId: "security-\(suffix)-\(index)", kind: .liveActivityUpdate, matchId: "m-\(suffix)", stateSeq: Int64(index + 1), priority: 5,
                expiration: now + 3600, relevanceScore: nil,
                payload: #"{"aps":{"timestamp":\#(now),"event":"update","content-state":{"score":"87/6"}}}"#,
                targets: targets, createdAt: now * 1000)
            _ = try await producer.send(topic: topics[0], key: job.jobId, value: try MessageCodec.encode(job))
        }
        let deadline = ContinuousClock.now + .seconds(60)
        var delivered = false
        while ContinuousClock.now < deadline, !delivered {
            let metrics = try await RawHTTPClient.request(port: senderPort, method: "GET", path: "/metrics").text
            delivered = metrics.contains(#"apns_sender_jobs_total{result="delivered"} 3"#)
            if !delivered { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(delivered, "three jobs delivered through mock-apns")
        try await producer.shutdown()

        await api.stop()
        await sender.stop()
        await mock.stop()

        // The grep.
        let secrets = try [Self.pemBody(p8), Self.pemBody(auth.keysDirectory.appendingPathComponent("jwt-private.pem").path)]
        var scanned = 0
        for process in [api, sender, mock] {
            let log = process.log
            scanned += log.split(separator: "\n").count
            #expect(!log.isEmpty, "\(process.name) wrote a log")
            for used in usedTokens where used.count > 20 { #expect(!log.contains(used), "\(process.name) logged a JWT used in a request") }
            for part in parts where part.count > 20 { #expect(!log.contains(part), "\(process.name) logged part of a JWT") }
            #expect(!log.contains("BEGIN PRIVATE KEY") && !log.contains("PRIVATE KEY-----"), "\(process.name) logged a PEM private key")
            for secret in secrets {
                #expect(!log.contains(secret.joined), "\(process.name) logged a private key's base64")
                for line in secret.lines where line.count >= 16 { #expect(!log.contains(line), "\(process.name) logged a private key line") }
            }
            let shapes = Self.jwtShapes(in: log)
            #expect(shapes.isEmpty, "\(process.name) logged JWT-shaped strings: \(shapes.map { String($0.prefix(24)) + "…" })")
        }
        #expect(scanned > 20, "the logs hold the run (\(scanned) lines)")
        #expect(Self.jwtShapes(in: "x \(token) y") == [token], "the JWT pattern finds a real token")
        try? FileManager.default.removeItem(at: directory)
    }
}
