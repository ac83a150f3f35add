import DevCredentials
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
import Testing

/// A failed precondition in an api test, saying what to do.
struct APITestFailure: Error, CustomStringConvertible {
    let description: String
}

/// The api's router against the real PostgreSQL and Kafka, with an in-process key pair for tokens.
/// Requests go to the router in-process by default (a request value in, a response value out: no
/// socket), or over real HTTP to the same router on a server socket (port 0), which also stays up for
/// the tests that speak raw HTTP to `port`.
final class APITestHarness: Sendable {
    /// How `call` reaches the router.
    enum Transport: Sendable {
        /// `Router.respondImmediately(to:)`, else `Router.respond(to:)`, in-process.
        case inProcess
        /// HTTP/1.1 over a loopback socket to the real server (the project's HTTPServer).
        case http
    }

    static let issuer = "https://cognito-idp.test.example/pool-api-tests"
    static let clientId = "api-tests-client"
    static let keyPair = try! RSAKeyPair.generate()
    static let signer = JWTSigner(keyPair: keyPair, kid: "api-test-key")
    static let brokers = ProcessInfo.processInfo.environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:19092"
    static let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        ?? "postgresql://sightscreen@127.0.0.1:55432/sightscreen"
    static let logger = Logger(label: "api-tests", minimumLevel: .error)
    /// This test process's own schema (every table, migrated once), so rows other runs left behind in the
    /// shared database (hundreds of "live" matches) never change what a test sees.
    static let schema = "api_tests_" + UUID().uuidString.prefix(8).lowercased()
    /// The push-jobs topic of this test process (created with the schema): the shared `push.jobs`
    /// stays free of test jobs, which a later run's fresh apns-sender group could otherwise read.
    static let jobsTopic = "api-tests.push-jobs." + schema.dropFirst("api_tests_".count)

    let server: HTTPServer
    let router: Router
    /// How `call` reaches the router (see `over(_:)`).
    let transport: Transport
    let service: APIService
    let database: PostgresClient
    let producer: KafkaProducer
    let clock: any WallClock
    var port: UInt16 { server.port }

    /// A fresh api; `configure` adjusts its configuration (e.g. the rate limit). `jobBrokers` is
    /// where its producer sends push jobs (a dead address makes every produce fail after
    /// `messageTimeout`).
    static func make(
        clock: any WallClock = SystemWallClock(), jobBrokers: String = brokers, messageTimeout: Duration = .seconds(15),
        poolSize: Int = 8, queryTimeout: Duration? = .seconds(10),
        configure: (inout APIConfiguration) -> Void = { _ in }
    ) async throws -> APITestHarness {
        var postgres = try PostgresConfiguration(url: databaseURL)
        postgres.searchPath = [schema]
        postgres.maxConnections = poolSize
        postgres.queryTimeout = queryTimeout
        postgres.connectTimeout = .seconds(3)
        let database = PostgresClient(configuration: postgres, logger: logger)
        do {
            try await Migrations.once(database)
        } catch {
            throw APITestFailure(description: "PostgreSQL (\(databaseURL)) or Kafka (\(brokers)) not usable: start them with scripts/stack up (\(error))")
        }
        try KafkaLibrary.requireMinimumVersion()
        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: jobBrokers, clientId: "api-tests")
        producerConfiguration.linger = .milliseconds(1)
        producerConfiguration.messageTimeout = messageTimeout
        // A deliberately unreachable broker: librdkafka logs each reconnect (several a second) at error level for as long
        // as the handle lives, which buried the end of the test output; the test asserts the failure itself.
        let producerLogger = jobBrokers == brokers ? logger : Logger(label: "api-tests.unreachable-broker", minimumLevel: .error, sink: LogSink { _ in })
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: producerLogger)
        var configuration = APIConfiguration(
            infrastructure: InfrastructureOptions(kafkaBrokers: brokers, databaseURL: databaseURL),
            keySet: JSONWebKeySet(keys: [try keyPair.publicJWK(kid: "api-test-key")]),
            verifier: JWTVerifierConfiguration(issuer: issuer, clientId: clientId))
        configuration.rateLimitPerMinute = 0
        configuration.liveCacheSeconds = 0
        configuration.pushJobsTopic = jobsTopic
        configure(&configuration)
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: brokers, clientId: "api-tests-admin"), logger: logger)
        let service = try APIService(
            configuration: configuration, database: database, producer: producer, admin: admin, clock: clock, logger: logger,
            metrics: MetricsRegistry())
        var router = Router()
        APIRoutes.install(on: &router, service)
        router.get("/health") { _ in .json(["status": "ok"]) }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threadCount: 2), router: router, logger: logger)
        try server.start()
        return APITestHarness(server: server, router: router, service: service, database: database, producer: producer, clock: clock)
    }

    private init(server: HTTPServer, router: Router, transport: Transport = .inProcess, service: APIService,
                 database: PostgresClient, producer: KafkaProducer, clock: any WallClock) {
        self.server = server
        self.router = router
        self.transport = transport
        self.service = service
        self.database = database
        self.producer = producer
        self.clock = clock
    }

    /// The same api (server, router, database, producer) whose `call` goes over `transport`: tests that
    /// must prove the route over real HTTP use `over(.http)`.
    func over(_ transport: Transport) -> APITestHarness {
        APITestHarness(server: server, router: router, transport: transport, service: service, database: database,
                       producer: producer, clock: clock)
    }

    /// The shared instance most tests use.
    static func shared() async throws -> APITestHarness { try await SharedHarness.instance.get() }

    /// An access token for `user` valid for an hour from the harness clock.
    func token(_ user: String, admin: Bool = false) -> String {
        try! Self.signer.sign(JWTSigner.accessClaims(
            userId: user, issuer: Self.issuer, clientId: Self.clientId, now: clock.now(), admin: admin))
    }

    /// Sends a request as `user` (no Authorization header when nil) with a JSON body, over the harness's `transport`.
    func call(_ method: String, _ path: String, as user: String?, json: Any? = nil, admin: Bool = false,
              headers extra: [String: String] = [:]) async throws -> WireResponse {
        var headers = extra
        if let user { headers["Authorization"] = "Bearer \(token(user, admin: admin))" }
        var body: [UInt8] = []
        if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
            headers["Content-Type"] = "application/json"
        }
        switch transport {
        case .http:
            return try await RawHTTPClient.request(port: port, method: method, path: path, headers: headers, body: body)
        case .inProcess:
            let request = HTTPRequest(method: HTTPMethod(rawValue: method), path: path, headers: headers, body: body)
            // As the server does: the route's immediate answer when it has one, else its async handler.
            let routed = router.route(request)
            let response: HTTPResponse
            if let immediate = router.respondImmediately(to: routed) {
                response = immediate
            } else {
                response = await router.respond(to: routed, logger: Self.logger)
            }
            var responseHeaders: [String: String] = [:]
            for header in response.headers {
                let name = header.name.lowercased()
                responseHeaders[name] = responseHeaders[name].map { "\($0), \(header.value)" } ?? header.value
            }
            responseHeaders["content-length"] = String(response.body.count)
            return WireResponse(status: response.status, headers: responseHeaders, body: response.body)
        }
    }

    // MARK: - Fixtures

    static func unique(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(12).lowercased())" }

    /// 64 hex characters (a device or push-to-start token); `length` for longer Live Activity tokens.
    static func hexToken(length: Int = 64) -> String {
        String((0..<length).map { _ in "0123456789abcdef".randomElement()! })
    }

    static func card(_ matchId: String, startsAt: Int64, phase: MatchPhase = .upcoming) -> MatchCard {
        MatchCard(
            matchId: matchId, startsAt: startsAt, status: phase == .live ? "1st Innings" : "NS", phase: phase, title: "India vs Australia",
            subtitle: "1st T20I · Test Series · Wankhede Stadium",
            home: .init(name: "India", abbr: "IND", score: phase == .live ? "87/3 (10.2)" : "", logoUrl: nil),
            away: .init(name: "Australia", abbr: "AUS", score: "", logoUrl: "https://example.com/aus.png"),
            statusText: phase == .live ? "India batting" : "Starts 14:00 UTC")
    }

    static func displayState(_ matchId: String) -> UnifiedDisplayState {
        let batting = UnifiedDisplayState.TeamScore(abbr: "IND", name: "India", score: "87/3", overs: "10.2")
        let bowling = UnifiedDisplayState.TeamScore(abbr: "AUS", name: "Australia", score: "", overs: "")
        return UnifiedDisplayState(
            matchId: matchId, matchDisplayState: .live, title: "India vs Australia", subtitle: "1st T20I", statusText: "India batting",
            compactLeading: .init(teamAbbr: "IND", score: "87/3"), compactTrailing: .init(overs: "10.2", runRate: "8.41"),
            minimal: .init(text: "87/3"),
            expanded: .init(
                batting: batting, bowling: bowling, batters: [.init(name: "Rohit Sharma", score: "45 (32)", onStrike: true)],
                bowler: .init(name: "Pat Cummins", figures: "1-20 (2.2)"), lastBalls: ["1", "4", "W", "•", "1wd", "6"], target: nil,
                equation: nil, runRate: "RR 8.41", requiredRate: nil),
            lockScreen: .init(headline: "IND 87/3 (10.2)", detail: "Rohit Sharma 45 (32)", footer: "India batting"), resultLine: nil,
            updatedAt: 1_800_000_000)
    }

    /// Inserts a match (and, when live, its display state).
    func seedMatch(_ matchId: String, live: Bool, startsAt: Date = Date(), withState: Bool = true) async throws {
        let card = Self.card(matchId, startsAt: Int64(startsAt.timeIntervalSince1970), phase: live ? .live : .upcoming)
        try await database.execute(
            """
            INSERT INTO matches (match_id, starts_at, status, is_live, card) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (match_id) DO UPDATE SET starts_at = EXCLUDED.starts_at, is_live = EXCLUDED.is_live, card = EXCLUDED.card
            """, [matchId, startsAt, card.status, live, try PostgresJSON(encoding: card)])
        if live && withState {
            try await database.execute(
                """
                INSERT INTO active_matches (match_id, display_state, seq) VALUES ($1, $2, 7)
                ON CONFLICT (match_id) DO UPDATE SET display_state = EXCLUDED.display_state
                """, [matchId, try PostgresJSON(encoding: Self.displayState(matchId))])
        }
    }

    /// Two fresh users and a live match the first ("alice") follows from "alice-phone", whose
    /// activity is active with `aliceToken`; the second ("bob") has done nothing yet.
    func aliceFollowingWithAnActivity() async throws -> (alice: String, bob: String, match: String, aliceToken: String) {
        let (alice, bob, match) = (Self.unique("alice"), Self.unique("bob"), Self.unique("m"))
        try await seedMatch(match, live: true)
        try await registerDevice(alice, "alice-phone")
        #expect(try await call("POST", "/user/follow/match", as: alice, json: ["matchId": match]).status == 200)
        let aliceToken = Self.hexToken(length: 160)
        #expect(try await call("POST", "/matches/\(match)/activity-token", as: alice,
                               json: ["token": aliceToken, "deviceId": "alice-phone"]).status == 200)
        return (alice, bob, match, aliceToken)
    }

    /// Registers a device through the api; returns its push-to-start token.
    @discardableResult
    func registerDevice(_ user: String, _ deviceId: String, pushToStart: Bool = true, env: String = "sandbox") async throws -> String? {
        let token = pushToStart ? Self.hexToken() : nil
        var body: [String: Any] = ["deviceId": deviceId, "apnsEnvironment": env, "appVersion": "1.4.0", "pushToken": Self.hexToken()]
        if let token { body["pushToStartToken"] = token }
        let response = try await call("POST", "/devices", as: user, json: body)
        guard response.status == 200 else { throw APITestFailure(description: "POST /devices answered \(response.status): \(response.text)") }
        return token
    }

    /// The live_activities rows of (match, user): device → (status, token, endReason).
    func activities(_ matchId: String, _ user: String) async throws -> [String: (status: String, token: String?, reason: String?)] {
        let rows = try await database.query(
            "SELECT device_id, status, update_token, end_reason FROM live_activities WHERE match_id = $1 AND user_id = $2", [matchId, user])
        var result: [String: (String, String?, String?)] = [:]
        for row in rows {
            result[try row.decode("device_id")] = (try row.decode("status"), try row.decode("update_token", as: String?.self),
                                                    try row.decode("end_reason", as: String?.self))
        }
        return result
    }

    func follows(_ matchId: String, _ user: String) async throws -> Bool {
        try await !database.query("SELECT 1 FROM match_follows WHERE match_id = $1 AND user_id = $2", [matchId, user]).isEmpty
    }
}

/// Applies the migrations once per test process.
enum Migrations {
    static func once(_ database: PostgresClient) async throws {
        try await MigrationGate.shared.run {
            try await database.execute("CREATE SCHEMA IF NOT EXISTS \(APITestHarness.schema)")
            try await PostgresMigrator(database).apply(SightscreenMigrations.all)
            let admin = try KafkaAdmin(
                configuration: KafkaAdminConfiguration(bootstrapServers: APITestHarness.brokers, clientId: "api-tests-setup"),
                logger: APITestHarness.logger)
            try await admin.createTopics([KafkaTopicSpec(name: APITestHarness.jobsTopic, partitions: 3)], timeout: .seconds(10))
        }
    }
}

/// Runs its body once per process; concurrent callers wait for that one run (an actor alone would let a second
/// caller in while the first awaits).
actor MigrationGate {
    static let shared = MigrationGate()
    private var run: Task<Void, any Error>?
    func run(_ body: @escaping @Sendable () async throws -> Void) async throws {
        if let run, (try? await run.value) != nil { return }
        let attempt = Task { try await body() }
        run = attempt
        try await attempt.value
    }
}

/// Builds the shared harness once.
actor SharedHarness {
    static let instance = SharedHarness()
    private var task: Task<APITestHarness, Error>?

    func get() async throws -> APITestHarness {
        if let task { return try await task.value }
        let task = Task { try await APITestHarness.make() }
        self.task = task
        return try await task.value
    }
}
