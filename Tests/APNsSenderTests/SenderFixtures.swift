import Crypto
import DevCredentials
import APNs
import APNsMock
import Contracts
import Foundation
import HTTP2
import Kafka
import Runtime
import Synchronization

/// A failed precondition or wait, with a message that says what to do.
struct SenderTestFailure: Error, CustomStringConvertible {
    let description: String
}

/// Keys, certificates, mocks, broker access, jobs and bounded waits for the apns-sender tests.
enum SenderFixtures {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let bundleID = "com.sightscreen.app"
    static let brokers = ProcessInfo.processInfo.environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:19092"

    static let privateKeyPEM: String = try! APNsSigningKey.generatePrivateKeyPEM()
    static let key: APNsSigningKey = try! APNsSigningKey(pem: privateKeyPEM)
    static let directory: String = {
        let path = NSTemporaryDirectory() + "apns-sender-tests-\(getpid())"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
    static let certificate: SelfSignedCertificate = try! SelfSignedCertificate.loadOrGenerate(in: directory + "/tls")
    /// The .p8 file for APNS_KEY_PATH.
    static let keyFile: String = {
        let path = directory + "/AuthKey_\(keyID).p8"
        try! Data(privateKeyPEM.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }()

    static let quietLogger = Logger(label: "apns-sender-tests", minimumLevel: .error, sink: LogSink { _ in })

    static func mock(
        maxConcurrentStreams: Int = 1000, faults: MockAPNsFaults = MockAPNsFaults(), clock: any WallClock = SystemWallClock(),
        managementPorts: [APNsServerEnvironment: Int] = [:]
    ) throws -> MockAPNsServer {
        try MockAPNsServer(configuration: MockAPNsConfiguration(
            certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile, teamID: teamID,
            keys: [keyID: try APNsSigningKey(pem: key.publicKeyPEM)], bundleID: bundleID,
            maxConcurrentStreams: maxConcurrentStreams, clock: clock, faults: faults, managementPorts: managementPorts))
    }

    /// A name no other test (or earlier run) uses.
    static func unique(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// Checks the broker answers within 20 s (a busy machine can take seconds); fails (never skips) with how to start it.
    static func requireBroker() async throws -> KafkaAdmin {
        try KafkaLibrary.requireMinimumVersion()
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: brokers, clientId: "apns-sender-tests"),
                                   logger: quietLogger)
        do {
            _ = try await admin.listTopics(timeout: .seconds(20))
        } catch {
            throw SenderTestFailure(description: "Kafka broker not reachable at \(brokers): start it with scripts/stack up (\(error))")
        }
        return admin
    }

    static func producer() throws -> KafkaProducer {
        var configuration = KafkaProducerConfiguration(bootstrapServers: brokers, clientId: unique("sender-test-producer"))
        configuration.messageTimeout = .seconds(15)
        configuration.additional["message.max.bytes"] = "3000000"
        return try KafkaProducer(configuration: configuration, logger: quietLogger)
    }

    static func token(length: Int = 160) -> String {
        (0..<length / 2).map { _ in
            let text = String(UInt8.random(in: 0...255), radix: 16)
            return text.count == 1 ? "0" + text : text
        }.joined()
    }

    static func target(_ token: String = token(), env: APNsEnvironment = .production) -> PushTarget {
        PushTarget(token: token, env: env, userId: "u-\(token.prefix(6))", deviceId: "d-\(token.prefix(6))")
    }

    /// A payload the mock accepts for `kind`.
    static func payload(_ kind: PushKind, now: Int64) -> String {
        switch kind {
        case .liveActivityUpdate: #"{"aps":{"timestamp":\#(now),"event":"update","content-state":{"score":"87/6"}}}"#
        case .liveActivityEnd:
            #"{"aps":{"timestamp":\#(now),"event":"end","dismissal-date":\#(now + 3600),"content-state":{"score":"180/9"}}}"#
        case .liveActivityStart:
            #"{"aps":{"timestamp":\#(now),"event":"start","content-state":{"score":"0/0"},"attributes-type":"MatchActivityAttributes","attributes":{"matchId":"m1","title":"Live"},"alert":{"title":"Live","body":"Match started"}}}"#
        case .alert: #"{"aps":{"alert":{"title":"Wicket","body":"Rohit out"}}}"#
        case .background: BackgroundEndPayload.json(matchId: "m1", reason: "user_unfollow")
        }
    }

    static func job(
        targets: [PushTarget], kind: PushKind = .liveActivityUpdate, matchId: String = "m1", now: Date = Date(),
        expiresIn: Int64 = 3600, payload: String? = nil
    ) -> PushJob {
        let seconds = Int64(now.timeIntervalSince1970)
        return PushJob(
            jobId: "job-\(UUID().uuidString)", kind: kind, matchId: matchId, stateSeq: 1, priority: 5,
            expiration: seconds + expiresIn, relevanceScore: nil, payload: payload ?? Self.payload(kind, now: seconds),
            targets: targets, createdAt: seconds * 1000)
    }
}

/// Collects log lines in memory (to assert on what was logged).
final class CapturedLog: Sendable {
    private let lines = LockedValue<[String]>([])

    func logger(_ label: String = "apns-sender", level: LogLevel = .debug) -> Logger {
        Logger(label: label, minimumLevel: level, sink: LogSink { [self] line in lines.withLock { $0.append(line) } })
    }

    var all: [String] { lines.withLock { $0 } }
}

extension MetricsRegistry {
    /// The value of one rendered series (0 when absent), e.g. `apns_sender_jobs_total{result="delivered"}`.
    func value(_ series: String) -> Double {
        for line in render().split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }
}
