import SharedTestSupport
@testable import API
import Auth
import Contracts
import Foundation
import HTTPServer
import Kafka
import Postgres
import Runtime
import Schema
import ServiceKit

/// A failed precondition in an api test, saying what to do.
struct SecurityTestFailure: Error, CustomStringConvertible {
    let description: String
}

/// (Adapted from Tests/APITests.) The api's router on a real server socket (port 0) against the real PostgreSQL and Kafka, with
/// an in-process key pair for tokens.
final class SecurityHarness: Sendable {
    static let issuer = "https://cognito-idp.test.example/pool-security-tests"
    static let clientId = "security-tests-client"
    static let keyPair = try! RSAKeyPair.generate()
    static let signer = JWTSigner(keyPair: keyPair, kid: "security-test-key")
    static let brokers = ProcessInfo.processInfo.environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:19092"
    static let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        ?? "postgresql://sightscreen@127.0.0.1:55432/sightscreen"
    static let logger = Logger(label: "security-tests", minimumLevel: .error)

    let server: HTTPServer
    let service: APIService
    let database: PostgresClient
    let producer: KafkaProducer
    let clock: any WallClock
    var port: UInt16 { server.port }

    /// A fresh api; `configure` adjusts its configuration (e.g. the rate limit).
    static func make(clock: any WallClock = SystemWallClock(), configure: (inout APIConfiguration) -> Void = { _ in }) async throws -> SecurityHarness {
        var postgres = try PostgresConfiguration(url: databaseURL)
        postgres.maxConnections = 8
        postgres.connectTimeout = .seconds(3)
        let database = PostgresClient(configuration: postgres, logger: logger)
        do {
            try await Migrations.once(database)
        } catch {
            throw SecurityTestFailure(description: "PostgreSQL not usable at \(databaseURL): start it with scripts/stack servers (\(error))")
        }
        try KafkaLibrary.requireMinimumVersion()
        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: brokers, clientId: "security-tests")
        producerConfiguration.linger = .milliseconds(1)
        producerConfiguration.messageTimeout = .seconds(15)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        var configuration = APIConfiguration(
            infrastructure: InfrastructureOptions(kafkaBrokers: brokers, databaseURL: databaseURL),
            keySet: JSONWebKeySet(keys: [try keyPair.publicJWK(kid: "security-test-key")]),
            verifier: JWTVerifierConfiguration(issuer: issuer, clientId: clientId))
        configuration.rateLimitPerMinute = 0
        configuration.liveCacheSeconds = 0
        configure(&configuration)
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: brokers, clientId: "security-tests-admin"), logger: logger)
        let service = try APIService(
            configuration: configuration, database: database, producer: producer, admin: admin, clock: clock, logger: logger,
            metrics: MetricsRegistry())
        var router = Router()
        APIRoutes.install(on: &router, service)
        router.get("/health") { _ in .json(["status": "ok"]) }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threadCount: 2), router: router, logger: logger)
        try server.start()
        return SecurityHarness(server: server, service: service, database: database, producer: producer, clock: clock)
    }

    private init(server: HTTPServer, service: APIService, database: PostgresClient, producer: KafkaProducer, clock: any WallClock) {
        self.server = server
        self.service = service
        self.database = database
        self.producer = producer
        self.clock = clock
    }

    /// The shared instance most tests use.
    static func shared() async throws -> SecurityHarness { try await SharedHarness.instance.get() }

    /// An access token for `user` valid for an hour from the harness clock.
    func token(_ user: String, admin: Bool = false) -> String {
        try! Self.signer.sign(JWTSigner.accessClaims(
            userId: user, issuer: Self.issuer, clientId: Self.clientId, now: clock.now(), admin: admin))
    }

    /// Sends a request as `user` (no Authorization header when nil) with a JSON body.
    func call(_ method: String, _ path: String, as user: String?, json: Any? = nil, admin: Bool = false,
              headers extra: [String: String] = [:]) async throws -> WireResponse {
        var headers = extra
        if let user { headers["Authorization"] = "Bearer \(token(user, admin: admin))" }
        var body: [UInt8] = []
        if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
            headers["Content-Type"] = "application/json"
        }
        return try await RawHTTPClient.request(port: port, method: method, path: path, headers: headers, body: body)
    }

    // MARK: - Fixtures

    static func unique(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(12).lowercased())" }

    /// Hex of `length` characters (a device, push-to-start or Live Activity token).
    static func hexToken(length: Int = 64) -> String {
        String((0..<length).map { _ in "0123456789abcdef".randomElement()! })
    }

    /// Inserts a live match card (enough for follow / activity routes).
    func seedMatch(_ matchId: String) async throws {
        let card = MatchCard(
            matchId: matchId, startsAt: Int64(Date().timeIntervalSince1970), status: "1st Innings", phase: .live, title: "A vs B",
            subtitle: "1st T20I", home: .init(name: "A", abbr: "AAA", score: "1/0", logoUrl: nil),
            away: .init(name: "B", abbr: "BBB", score: "", logoUrl: nil), statusText: "A batting")
        try await database.execute(
            "INSERT INTO matches (match_id, starts_at, status, is_live, card) VALUES ($1, $2, $3, true, $4) ON CONFLICT (match_id) DO NOTHING",
            [matchId, Date(), card.status, try PostgresJSON(encoding: card)])
    }

    /// Registers a device through the api (push-to-start token set).
    func registerDevice(_ user: String, _ deviceId: String) async throws {
        let response = try await call("POST", "/devices", as: user, json: [
            "deviceId": deviceId, "apnsEnvironment": "sandbox", "appVersion": "1.0.0", "pushToStartToken": Self.hexToken(),
        ])
        guard response.status == 200 else { throw SecurityTestFailure(description: "POST /devices answered \(response.status): \(response.text)") }
    }

    /// Everything the database holds for `user`: follows, devices and activities, as sorted text rows.
    func snapshot(of user: String) async throws -> [String] {
        var rows: [String] = []
        for row in try await database.query("SELECT match_id FROM match_follows WHERE user_id = $1", [user]) {
            rows.append("follow \(try row.decode("match_id", as: String.self))")
        }
        for row in try await database.query(
            "SELECT device_id, push_token, push_to_start_token, app_version FROM devices WHERE user_id = $1", [user]) {
            rows.append("device \(try row.decode("device_id", as: String.self)) \(try row.decode("push_token", as: String?.self) ?? "-") "
                + "\(try row.decode("push_to_start_token", as: String?.self) ?? "-") \(try row.decode("app_version", as: String?.self) ?? "-")")
        }
        for row in try await database.query(
            "SELECT match_id, device_id, status, update_token FROM live_activities WHERE user_id = $1", [user]) {
            rows.append("activity \(try row.decode("match_id", as: String.self)) \(try row.decode("device_id", as: String.self)) "
                + "\(try row.decode("status", as: String.self)) \(try row.decode("update_token", as: String?.self) ?? "-")")
        }
        return rows.sorted()
    }
}

/// Applies the migrations once per test process.
enum Migrations {
    static func once(_ database: PostgresClient) async throws {
        try await MigrationGate.shared.run { try await PostgresMigrator(database).apply(SightscreenMigrations.all) }
    }
}

actor MigrationGate {
    static let shared = MigrationGate()
    private var done = false
    func run(_ body: () async throws -> Void) async throws {
        guard !done else { return }
        try await body()
        done = true
    }
}

/// Builds the shared harness once.
actor SharedHarness {
    static let instance = SharedHarness()
    private var task: Task<SecurityHarness, Error>?

    func get() async throws -> SecurityHarness {
        if let task { return try await task.value }
        let task = Task { try await SecurityHarness.make() }
        self.task = task
        return try await task.value
    }
}
