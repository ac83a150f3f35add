import APNs
import BroadcastChannels
import Contracts
import Foundation
import Kafka
import Postgres
import Runtime
import Schema

// e2e-fanout-bench: the fixture half of Benchmarks/e2e-fanout.sh (the script starts the real services and
// measures them). Subcommands, each against KAFKA_BROKERS and DATABASE_URL:
//   setup   --match M --rows N --prefix P   topics P.events (12), P.jobs (24), P.invalid, P.dead, P.dead-letter;
//                                            N active Live Activities of match M (N/3 users × 3 devices,
//                                            160-hex update tokens, real schema, generate_series)
//           [--channel-share S --manage-port P --ca CA --key KEY.p8]
//                                            with S > 0: a broadcast channel for M created on mock-apns's production
//                                            management port, and that share of the rows channel activities (no
//                                            token); prints channel_id=, token_rows=, channel_rows=
//   fire    --match M --prefix P            produces one priority-10 MatchBusEvent (a wicket) for M to P.events;
//                                            prints "fired_at_ms=<unix ms>" once it is acknowledged
//   series  --match M --prefix P --count K --interval-ms T [--priorities 10,5,5,5,5,10] [--first-seq S]
//                                            produces K MatchBusEvents of M (seq S, S+1, …; each a new score) one every
//                                            T ms, each with a priority from the list (10: a key event with an alert;
//                                            5: a plain update), each in a later whole second than the one before (its
//                                            push's aps.timestamp names it); prints one line per event:
//                                            "event=i seq=S priority=P timestamp=SECONDS produced_at_ms=MS"
//   cleanup --match M --prefix P            deletes M's rows (delivery record too) and the six topics (Tansu keeps every record in memory)
// Output is key=value lines (no logging), read by the script.

let environment = EnvironmentReader()
let brokers = environment.string("KAFKA_BROKERS", default: "127.0.0.1:19092")
let databaseURL = environment.string("DATABASE_URL", default: "postgresql://sightscreen@127.0.0.1:55432/sightscreen")
let logger = Logger(label: "e2e-fanout-bench", minimumLevel: .warning)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("e2e-fanout-bench: \(message)\n".utf8))
    exit(1)
}

func output(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

var options: [String: String] = [:]
let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail("usage: e2e-fanout-bench setup|fire|cleanup --match M [--rows N] --prefix P") }
var index = 1
while index + 1 < arguments.count {
    options[String(arguments[index].drop { $0 == "-" })] = arguments[index + 1]
    index += 2
}
guard let matchId = options["match"], let prefix = options["prefix"] else { fail("--match and --prefix are required") }
let topics = (events: prefix + ".events", jobs: prefix + ".jobs", invalid: prefix + ".invalid", dead: prefix + ".dead",
              deadLetter: prefix + ".dead-letter", outcomes: prefix + ".outcomes")

func admin() throws -> KafkaAdmin {
    try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: brokers, clientId: "e2e-fanout-bench"), logger: logger)
}

func database() async throws -> PostgresClient {
    var configuration = try PostgresConfiguration(url: databaseURL)
    configuration.queryTimeout = nil  // a million rows take longer than the services' 10 s bound
    let client = PostgresClient(configuration: configuration, logger: logger)
    _ = try await PostgresMigrator(client, logger: logger).apply(SightscreenMigrations.all)
    return client
}

/// A T20 chase as the demo shows it: a payload of about the demo's size; `ball` moves the score on.
func displayState(ball: Int = 0) -> UnifiedDisplayState {
    let runs = 147 + ball
    let overs = "15.\(ball % 6)"
    return UnifiedDisplayState(
        matchId: matchId, matchDisplayState: .live, title: "India vs South Africa", subtitle: "Final · T20 World Cup · Kensington Oval",
        statusText: "South Africa need 30 runs from 30 balls", compactLeading: .init(teamAbbr: "SA", score: "\(runs)/5"),
        compactTrailing: .init(overs: overs, runRate: "9.80"), minimal: .init(text: "\(runs)/5"),
        expanded: .init(batting: .init(abbr: "SA", name: "South Africa", score: "147/5", overs: "15.0"),
                        bowling: .init(abbr: "IND", name: "India", score: "176/7", overs: "20.0"),
                        batters: [.init(name: "Heinrich Klaasen", score: "52 (26)", onStrike: true),
                                  .init(name: "David Miller", score: "14 (11)", onStrike: false)],
                        bowler: .init(name: "Jasprit Bumrah", figures: "2-18 (3.0)"), lastBalls: ["1", "W", "4", "0", "6", "1"],
                        target: "Target 177", equation: "Need 30 off 30", runRate: "RR 9.80", requiredRate: "RRR 6.00"),
        lockScreen: .init(headline: "SA \(runs)/5 (\(overs))", detail: "Klaasen 52 (26) · Miller 14 (11)", footer: "Wicket! Stubbs b Bumrah 4 (7)"),
        resultLine: nil, updatedAt: Int64(Date().timeIntervalSince1970))
}

/// The producer of `fire` and `series`: no linger, acknowledged sends.
func eventProducer() throws -> KafkaProducer {
    var configuration = KafkaProducerConfiguration(bootstrapServers: brokers, clientId: "e2e-fanout-bench")
    configuration.linger = .zero
    return try KafkaProducer(configuration: configuration, logger: logger)
}

do {
    switch command {
    case "setup":
        guard let rows = options["rows"].flatMap(Int.init), rows > 0 else { fail("setup needs --rows N (N > 0)") }
        try await admin().createTopics([
            KafkaTopicSpec(name: topics.events, partitions: 12), KafkaTopicSpec(name: topics.jobs, partitions: 24),
            KafkaTopicSpec(name: topics.invalid, partitions: 3), KafkaTopicSpec(name: topics.dead, partitions: 3),
            KafkaTopicSpec(name: topics.deadLetter, partitions: 3), KafkaTopicSpec(name: topics.outcomes, partitions: 24),
        ], timeout: .seconds(30))
        let db = try await database()
        let users = (rows + 2) / 3
        try await db.execute("INSERT INTO matches (match_id, status, is_live) VALUES ($1, '2nd Innings', true) ON CONFLICT DO NOTHING", [matchId])
        try await db.execute(
            """
            INSERT INTO devices (user_id, device_id, push_to_start_token, apns_env)
            SELECT $1 || ':u' || u, 'd' || d, repeat(md5('pts' || $1 || u || d), 2), 'production'
            FROM generate_series(0, $2 - 1) AS u, generate_series(0, 2) AS d
            WHERE u * 3 + d < $3
            ON CONFLICT DO NOTHING
            """, [matchId, users, rows])
        // The channel share: rows with (u * 3 + d) % 100 below share × 100 are channel activities.
        let share = options["channel-share"].flatMap(Double.init) ?? 0
        var channelId: String?
        if share > 0 {
            guard let port = options["manage-port"].flatMap(Int.init), let ca = options["ca"], let keyPath = options["key"] else {
                fail("--channel-share needs --manage-port, --ca and --key")
            }
            let tokens = try APNsTokenProvider(teamID: "DEVTEAM001", keyID: "DEVKEY0001", key: try APNsSigningKey(contentsOfFile: keyPath))
            let client = try APNsChannelClient(bundleID: "com.sightscreen.app", tokens: tokens, production: .local(port: port),
                                               sandbox: .local(port: port), caFile: ca)
            let id = try await client.createChannel(environment: .production, storagePolicy: .noMessageStored,
                                                    requestID: UUID().uuidString.lowercased()).get()
            client.shutdown()
            let store = BroadcastChannelStore(database: db)
            guard let generation = try await store.beginCreate(matchId: matchId, environment: .production, storagePolicy: 0, now: Date()),
                  try await store.activate(matchId: matchId, environment: .production, generation: generation, channelId: id.rawValue, now: Date())
            else { fail("the channel row of \(matchId) exists already") }
            channelId = id.rawValue
        }
        try await db.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, update_token, activated_at, delivery, channel_id)
            SELECT $1, $1 || ':u' || u, 'd' || d, 'active',
                   CASE WHEN (u * 3 + d) % 100 < $4 THEN NULL ELSE repeat(md5($1 || u || 'd' || d), 5) END, now(),
                   CASE WHEN (u * 3 + d) % 100 < $4 THEN 'channel' ELSE 'token' END,
                   CASE WHEN (u * 3 + d) % 100 < $4 THEN $5 END
            FROM generate_series(0, $2 - 1) AS u, generate_series(0, 2) AS d
            WHERE u * 3 + d < $3
            """, [matchId, users, rows, Int((share * 100).rounded()), channelId])
        // Vacuum and analyze now, so that autovacuum's pass over the new rows does not run (and count as
        // PostgreSQL's CPU) during the measured fan-out; the same for the checkpoint the inserts' WAL would
        // trigger (superuser or pg_checkpoint only; a database user without the right skips it).
        try await db.execute("VACUUM (ANALYZE) live_activities, devices")
        _ = try? await db.execute("CHECKPOINT")
        let count = try await db.query("SELECT count(*) AS n FROM live_activities WHERE match_id = $1 AND status = 'active'", [matchId])
        output("rows=\(try count.first?.decode("n", as: Int.self) ?? 0)")
        let modes = try await db.query(
            "SELECT count(*) FILTER (WHERE delivery = 'token') AS t, count(*) FILTER (WHERE delivery = 'channel') AS c FROM live_activities WHERE match_id = $1",
            [matchId])
        output("token_rows=\(try modes.first?.decode("t", as: Int.self) ?? 0)")
        output("channel_rows=\(try modes.first?.decode("c", as: Int.self) ?? 0)")
        if let channelId { output("channel_id=\(channelId)") }
        await db.shutdown()
    case "fire":
        let event = MatchBusEvent(
            eventId: "\(matchId):1", matchId: matchId, seq: 1, emittedAt: Int64(Date().timeIntervalSince1970 * 1000),
            displayState: displayState(),
            keyEvent: KeyEvent(kind: .wicket, priority: 10, alert: Alert(title: "Wicket!", body: "Stubbs b Bumrah 4 (7)")), phase: .live)
        let producer = try eventProducer()
        let started = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try await producer.send(topic: topics.events, key: matchId, value: try MessageCodec.encode(event))
        output("fired_at_ms=\(started)")
        output("acknowledged_at_ms=\(Int64(Date().timeIntervalSince1970 * 1000))")
        try await producer.shutdown()
    case "series":
        guard let count = options["count"].flatMap(Int.init), count > 0,
              let interval = options["interval-ms"].flatMap(Int.init), interval >= 0 else {
            fail("series needs --count K (K > 0) and --interval-ms T (T >= 0)")
        }
        let priorities = (options["priorities"] ?? "10,5,5,5,5,10").split(separator: ",").compactMap { Int($0) }
        guard !priorities.isEmpty, priorities.allSatisfy({ $0 == 5 || $0 == 10 }) else { fail("--priorities: a list of 5 and 10") }
        let firstSeq = options["first-seq"].flatMap(Int64.init) ?? 1
        let producer = try eventProducer()
        // The schedule counts from the first event's acknowledgement: the producer's bootstrap is not part of it.
        var start = ContinuousClock.now
        var lastSecond: Int64 = 0
        for index in 0..<count {
            if index > 0 { try await Task.sleep(until: start + .milliseconds(interval * index), clock: .continuous) }
            var now = Int64(Date().timeIntervalSince1970 * 1000)
            if now / 1000 <= lastSecond {  // each event in a later second: its aps.timestamp names it
                try await Task.sleep(for: .milliseconds((lastSecond + 1) * 1000 - now + 1))
                now = Int64(Date().timeIntervalSince1970 * 1000)
            }
            lastSecond = now / 1000
            let seq = firstSeq + Int64(index)
            let priority = priorities[index % priorities.count]
            let keyEvent = priority == 10
                ? KeyEvent(kind: .wicket, priority: 10, alert: Alert(title: "Wicket!", body: "Ball \(seq): caught at long-on")) : nil
            let event = MatchBusEvent(eventId: "\(matchId):\(seq)", matchId: matchId, seq: seq, emittedAt: now,
                                      displayState: displayState(ball: Int(seq)), keyEvent: keyEvent, phase: .live)
            _ = try await producer.send(topic: topics.events, key: matchId, value: try MessageCodec.encode(event))
            if index == 0 { start = .now }
            output("event=\(index + 1) seq=\(seq) priority=\(priority) timestamp=\(now / 1000) produced_at_ms=\(Int64(Date().timeIntervalSince1970 * 1000))")
        }
        try await producer.shutdown()
    case "cleanup":
        let db = try await database()
        let deleted = try await db.execute("DELETE FROM live_activities WHERE match_id = $1", [matchId])
        try await db.execute("DELETE FROM devices WHERE user_id LIKE $1 || ':u%'", [matchId])
        try await db.execute("DELETE FROM matches WHERE match_id = $1", [matchId])
        try await db.execute("DELETE FROM broadcast_channels WHERE match_id = $1", [matchId])
        try await db.execute("DELETE FROM push_deliveries WHERE match_id = $1", [matchId])
        try await db.execute("DELETE FROM delivery_record_matches WHERE match_id = $1", [matchId])
        try await db.execute("DELETE FROM delivery_jobs WHERE match_id = $1", [matchId])
        await db.shutdown()
        try await admin().deleteTopics([topics.events, topics.jobs, topics.invalid, topics.dead, topics.deadLetter, topics.outcomes],
                                       timeout: .seconds(30))
        output("deleted_rows=\(deleted)")
    default:
        fail("unknown command \(command)")
    }
} catch {
    fail("\(command): \(error)")
}
