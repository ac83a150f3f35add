// fanout-bench: one match with N active Live Activities (default 1,000,000; 3 devices per user) →
// every push job produced to Kafka and acknowledged. Prints seconds and peak RSS (VmHWM), and the
// parts separately: the database stream alone (cursor + decode + shard grouping), the same plus
// job encoding, and the full fan-out (stream + encode + produce + acknowledgements).
//
//   swift run -c release fanout-bench [rows] [--skip-insert]
//
// Rows live in schema `fanout_bench` (recreated unless --skip-insert); jobs go to topic `fanout-bench`.
import Contracts
import PushComposition
import FanOut
import Foundation
import Kafka
import LiveActivities
import Postgres
import Runtime
import Schema


func output(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fanout-bench: \(message)\n".utf8))
    exit(1)
}

func peakRSSMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
    }
    return 0
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let (whole, atto) = (ContinuousClock.now - start).components
    return Double(whole) + Double(atto) / 1e18
}

/// Runs off the main actor: a main-actor caller would hop executors on every streamed row.
@concurrent func benchmark(rows: Int, skipInsert: Bool) async throws {
    let environment = ProcessInfo.processInfo.environment
    let databaseURL = environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "postgresql://sightscreen@127.0.0.1:55432/sightscreen"
    let brokers = environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:19092"
    let logger = Logger(label: "fanout-bench", minimumLevel: .warning)
    let matchId = "bench-match"
    let topic = "fanout-bench"
    let schema = "fanout_bench"
    let state = UnifiedDisplayState(
        matchId: matchId, matchDisplayState: .live, title: "India vs Australia", subtitle: "3rd ODI · Wankhede Stadium, Mumbai",
        statusText: "India need 87 runs from 60 balls", compactLeading: .init(teamAbbr: "IND", score: "213/4"),
        compactTrailing: .init(overs: "40.0", runRate: "5.33"), minimal: .init(text: "213/4"),
        expanded: .init(batting: .init(abbr: "IND", name: "India", score: "213/4", overs: "40.0"),
                        bowling: .init(abbr: "AUS", name: "Australia", score: "299/8", overs: "50.0"),
                        batters: [.init(name: "Virat Kohli", score: "87 (80)", onStrike: true),
                                  .init(name: "KL Rahul", score: "34 (41)", onStrike: false)],
                        bowler: .init(name: "Pat Cummins", figures: "2-41 (8.0)"), lastBalls: ["1", "4", "0", "W", "2", "6"],
                        target: "Target 300", equation: "Need 87 off 60", runRate: "RR 5.33", requiredRate: "RRR 8.70"),
        lockScreen: .init(headline: "IND 213/4 (40.0)", detail: "Kohli 87 (80) · Rahul 34 (41)", footer: "Need 87 off 60"),
        resultLine: nil, updatedAt: 1_800_000_000)
    let event = MatchBusEvent(eventId: "\(matchId):1", matchId: matchId, seq: 1, emittedAt: 1_800_000_000_000, displayState: state,
                              keyEvent: KeyEvent(kind: .wicket, priority: 10, alert: Alert(title: "Wicket!", body: "Smith c Kohli b Bumrah 45 (32)")),
                              phase: .live)

    try KafkaLibrary.requireMinimumVersion()
    let plan = try EventPushPlan(event: event, policy: PushPolicy())
    let admin = PostgresClient(configuration: try PostgresConfiguration(url: databaseURL), logger: logger)
    if !skipInsert {
        try await admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        try await admin.execute("CREATE SCHEMA \(schema)")
        await admin.shutdown()
    } else {
        await admin.shutdown()
    }
    var configuration = try PostgresConfiguration(url: databaseURL)
    configuration.searchPath = [schema]
    configuration.maxConnections = 2
    let database = PostgresClient(configuration: configuration, logger: logger)
    if !skipInsert {
        let start = ContinuousClock.now
        _ = try await PostgresMigrator(database, logger: logger).apply(SightscreenMigrations.all)
        try await database.execute(
            """
            INSERT INTO devices (user_id, device_id, push_to_start_token, apns_env)
            SELECT 'user-' || (i / 3), 'device-' || (i % 3), md5('pts' || i), CASE WHEN i % 10 = 0 THEN 'sandbox' ELSE 'production' END
            FROM generate_series(0, $1 - 1) AS i
            """, [rows])
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, update_token, apns_env)
            SELECT $1, 'user-' || (i / 3), 'device-' || (i % 3), 'active', repeat(md5(i::text), 5),
                   CASE WHEN i % 10 = 0 THEN 'sandbox' ELSE 'production' END
            FROM generate_series(0, $2 - 1) AS i
            """, [matchId, rows])
        try await database.execute("VACUUM ANALYZE live_activities")
        try await database.execute("VACUUM ANALYZE devices")
        output(String(format: "inserted %d active rows (160-hex tokens, 3 devices per user) in %.2f s", rows, seconds(since: start)))
    }

    let kafkaAdmin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: brokers), logger: logger)
    if try await kafkaAdmin.describeTopic(topic) == nil {
        try await kafkaAdmin.createTopics([KafkaTopicSpec(name: topic, partitions: 24, config: ["retention.ms": "600000"])])
    }
    var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: brokers, clientId: "fanout-bench")
    producerConfiguration.linger = .milliseconds(5)
    let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
    let settings = FanOutSettings(topic: topic)

    // 1. Full fan-out first, so VmHWM reflects it alone.
    let executor = FanOutExecutor(database: database, producer: producer, settings: settings)
    let full = try await executor.fanOut(plan)
    guard full.targets == rows else { fail("streamed \(full.targets) targets, expected \(rows)") }
    output(String(format: "full fan-out: %d targets → %d jobs (≤ %d targets, %d shards) produced and acknowledged in %.2f s; "
                  + "in the row callback %.2f s; peak RSS (VmHWM) %.1f MB",
                  full.targets, full.jobs, settings.targetsPerJob, settings.shards, full.seconds, full.handlingSeconds, peakRSSMegabytes()))

    // 2. The database stream alone: cursor, row decode and shard grouping.
    var start = ContinuousClock.now
    var planner = FanOutPlanner(shards: settings.shards)
    var chunks = 0
    try await LiveActivityStore(database: database).forEachActiveActivity(matchId: matchId, batchSize: settings.fetchRows) { activity in
        if planner.add(PushTarget(activity)) != nil { chunks += 1 }
    }
    chunks += planner.finish().count
    output(String(format: "database stream alone (cursor + decode + grouping): %d rows, %d chunks in %.2f s", planner.targetCount, chunks, seconds(since: start)))

    // 3. Stream + encoding, no produce.
    start = ContinuousClock.now
    planner = FanOutPlanner(shards: settings.shards)
    var bytes = 0
    try await LiveActivityStore(database: database).forEachActiveActivity(matchId: matchId, batchSize: settings.fetchRows) { activity in
        if let chunk = planner.add(PushTarget(activity)) { bytes += PushJobEncoder.encode(plan.job(for: chunk, nowMilliseconds: 0)).count }
    }
    for chunk in planner.finish() { bytes += PushJobEncoder.encode(plan.job(for: chunk, nowMilliseconds: 0)).count }
    output(String(format: "stream + job encoding, no produce: %.1f MB of jobs in %.2f s", Double(bytes) / 1e6, seconds(since: start)))

    // 4. Produce alone: the same volume of pre-encoded jobs (one reused value) through the same window.
    let sample = PushJobEncoder.encode(plan.job(for: PlannedChunk(shard: 0, chunk: 0, targets: Array(
        repeating: PushTarget(token: String(repeating: "ab", count: 80), env: .production, userId: "user-123456", deviceId: "device-1"),
        count: settings.targetsPerJob)), nowMilliseconds: 0))
    start = ContinuousClock.now
    var window = JobWindow(producer: producer, topic: topic, limit: settings.maximumInFlight)
    for index in 0..<full.jobs { try await window.submit(key: "\(matchId):\(index % settings.shards)", value: sample) }
    try await window.finish()
    let produceSeconds = seconds(since: start)
    output(String(format: "produce alone: %d jobs of %.0f kB = %.1f MB acknowledged in %.2f s (%.1f MB/s)", full.jobs,
                  Double(sample.count) / 1e3, Double(sample.count * full.jobs) / 1e6, produceSeconds,
                  Double(sample.count * full.jobs) / 1e6 / produceSeconds))
    output(String(format: "peak RSS (VmHWM) at the end: %.1f MB", peakRSSMegabytes()))
    try await producer.shutdown()
    await database.shutdown()
}

let arguments = CommandLine.arguments.dropFirst()
do {
    try await benchmark(rows: arguments.compactMap { Int($0) }.first ?? 1_000_000, skipInsert: arguments.contains("--skip-insert"))
} catch {
    fail("\(error)")
}
