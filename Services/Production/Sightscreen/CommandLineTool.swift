import CommandLineSupport
import Contracts
import Foundation
import Kafka
import Postgres
import Runtime
import Schema

/// Dispatches `sightscreen <command> ...`.
struct CommandLineTool {
    static let usage = """
        usage: sightscreen <command>
          topics apply [--config FILE] [--dry-run] [--allow-unreplicated]
                                          make the cluster's topics match deploy/topics.conf: create missing ones,
                                          add partitions, set configs; report drift and replication problems;
                                          refuse replication 1 on 3+ brokers (idempotent; `topics create` too)
          topics list                     topics with partitions, replication and under-replicated partitions
          kafka-check [--scratch-topic T] check the cluster of KAFKA_BROKERS (and its security settings): brokers,
                                          features, topics, a produce/consume/commit round trip, the group
                                          coordinator; says in plain words what is wrong
          migrate                         apply the numbered SQL migrations not yet applied
          lag [--group G ...] [--topic T ...]
                                          committed offset, end offset and lag per group, topic, partition
                                          (default: the services' groups; --topic narrows the topics)
          redrive-dead [--group G] [--include-permanent] [--dry-run]
                                          send the pushes on push.dead that ran out of retries and have not
                                          expired back to push.jobs (same jobs, next attempt); once per record
                                          per group (default sightscreen-redrive); PUSH_SHARDS as the services
          match ID [--json]               the operator's view of a match: followers, activities by status and end
                                          reason, the last event, channels, pushes accepted / refused / dead and
                                          their freshness (from the delivery record), lag
          user USER [--json]              support's view of a user: devices (tokens masked), each Live Activity's
          device USER DEVICE [--json]     life and deliveries (what APNs answered) and a diagnosis in plain words
          activity MATCH USER DEVICE [--json]
                                          (why a Lock Screen did or did not move)
          version                         versions of the loaded C libraries
          token --user ID [--admin] [--ttl SECONDS]   a dev JWT (RS256, dev key pair) for the api
          dev-keys                        create the dev key pair ($STACK_DIR/dev-keys) and print its paths
          check-day --record DIR [--out DIR]  the match-day checker over a run's record (what APNs and the devices
                                          saw, the feed's timeline, the faults): violations, freshness, freshness.svg
                                          (these three run sightscreen-dev: development harness, not in the production image)
          dev [--match ID] [--also ID,ID] [--speed X] [--devices N] [--channel-share X] [--cricsheet DIR] [--free-ports] [--prometheus] [--exit-when-done]
                                          the demo: the whole stack replaying a Cricsheet match to simulated
                                          devices, live progress and the preview URL (scripts/demo; Ctrl-C stops it).
                                          Runs sightscreen-dev (development harness, not in the production image)
        environment: KAFKA_BROKERS and the KAFKA_* security settings, DATABASE_URL, TOPICS_CONFIG, STACK_DIR, AUTH_ISSUER, AUTH_CLIENT_ID (see README.md)
        """

    /// The consumer groups of the services with their topics, shown by `lag` when no group is
    /// given. deploy/k8s's KEDA triggers name these groups (scripts/validate-deploy checks it).
    static let serviceGroups = ServiceConsumerGroups.all

    let console: Console
    let environment: EnvironmentReader

    func run(_ arguments: [String]) async throws {
        switch arguments.first {
        case "topics":
            switch arguments.dropFirst().first {
            case "apply", "create": try await topics.apply(arguments.dropFirst(2))
            case "list": try await topics.list()
            default: throw UsageError(message: "topics needs `apply`, `create` or `list`")
            }
        case "migrate": try await migrate()
        case "kafka-check": try await KafkaCheckCommand(console: console, cluster: try cluster(), environment: environment).run(arguments.dropFirst())
        case "lag": try await lag(arguments.dropFirst())
        case "redrive-dead": try await RedriveCommand(console: console, environment: environment).run(arguments.dropFirst())
        case "match": try await MatchCommand(console: console, environment: environment, admin: try? admin()).run(arguments.dropFirst())
        case "user", "device", "activity": try await SupportCommand(console: console, environment: environment).run(arguments[0], arguments.dropFirst())
        case "version": version()
        // Dev tokens and the demo are harness (sightscreen-dev): forwarded, never linked here.
        case "token", "dev-keys", "check-day": try DevForwarding.exec(command: arguments[0], ArraySlice(arguments))
        case "dev": try DevForwarding.exec(command: "dev", arguments.dropFirst())
        case "help", "--help", "-h", nil: console.line(Self.usage)
        case let other?: throw UsageError(message: "unknown command \(other)")
        }
    }

    /// The brokers and their security settings, read as the services read them.
    private func cluster() throws -> KafkaCluster { try KafkaCluster(environment) }
    private var logger: Logger { Logger(label: "sightscreen", minimumLevel: .warning) }

    private func admin() throws -> KafkaAdmin {
        try KafkaLibrary.requireMinimumVersion()
        return try KafkaAdmin(configuration: KafkaAdminConfiguration(cluster: cluster()), logger: logger)
    }

    private var topics: TopicsCommand { TopicsCommand(console: console, environment: environment, admin: admin) }

    private func migrate() async throws {
        let configuration = try PostgresConfiguration.fromEnvironment(environment)
        let client = PostgresClient(configuration: configuration, logger: logger)
        let applied = try await PostgresMigrator(client, logger: logger).apply(SightscreenMigrations.all)
        let all = try await PostgresMigrator(client, logger: logger).appliedVersions()
        await client.shutdown()
        console.line(applied.isEmpty
            ? "migrations: up to date (versions \(all.map(String.init).joined(separator: ", ")))"
            : "migrations: applied \(applied.map(String.init).joined(separator: ", "))")
    }

    /// `lag [--group G ...] [--topic T ...]` against the brokers of KAFKA_BROKERS (Apache Kafka,
    /// MSK, Tansu...): one row per group, topic and partition, then the total per group.
    private func lag(_ options: ArraySlice<String>) async throws {
        let selection = try LagSelection.parse(options)
        let plan = selection.plan(known: Self.serviceGroups.map { ($0.group, $0.topics.map(\.name)) },
                                  allTopics: Topic.allCases.map(\.name))
        guard !plan.isEmpty else { throw UsageError(message: "no service group consumes \(selection.topics.joined(separator: ", "))") }
        let admin = try admin()
        var rows: [[String]] = []
        for (group, topics) in plan {
            let entries = try await admin.lag(group: group, topics: topics)
                .sorted(by: { ($0.topic, $0.partition) < ($1.topic, $1.partition) })
            for entry in entries {
                rows.append([group, entry.topic, String(entry.partition), entry.committed.map(String.init) ?? "-",
                             String(entry.endOffset), String(entry.lag)])
            }
            rows.append([group, "(total)", "", "", "", String(entries.reduce(Int64(0)) { $0 + $1.lag })])
        }
        console.line("kafka \(try cluster().summary)")
        console.table(["GROUP", "TOPIC", "PARTITION", "COMMITTED", "END", "LAG"], rows)
    }

    private func version() {
        console.line("librdkafka \(KafkaLibrary.version)")
    }
}
