import Postgres
import Runtime
import ServiceKit
import Testing

/// The one place a PostgreSQL pool's settings come from: `DATABASE_URL`, `DATABASE_POOL_SIZE`, the service's own size.
@Suite struct InfrastructureOptionsTests {
    private func options(_ variables: [String: String]) throws -> InfrastructureOptions {
        try InfrastructureOptions(EnvironmentReader(variables))
    }

    @Test func aPoolIsNamedAfterItsServiceAndHasTheServicesSize() throws {
        let postgres = try options([:]).postgres(applicationName: "poller", poolSize: 4)
        #expect(postgres.applicationName == "poller")
        #expect(postgres.maxConnections == 4)
        #expect(postgres.host == "127.0.0.1" && postgres.port == 55432 && postgres.database == "sightscreen")
    }

    @Test func theURLsOptionsWinOverTheServicesDefaults() throws {
        let url = "postgresql://app@db:5432/live?application_name=ops&pool_size=7&query_timeout_ms=0"
        let postgres = try options(["DATABASE_URL": url]).postgres(applicationName: "detector", poolSize: 10)
        #expect(postgres.applicationName == "ops")
        #expect(postgres.maxConnections == 7)
        #expect(postgres.queryTimeout == nil)
    }

    @Test func databasePoolSizeSizesEveryPool() throws {
        let infrastructure = try options(["DATABASE_URL": "postgresql://app@db/live?pool_size=7", "DATABASE_POOL_SIZE": "3"])
        #expect(try infrastructure.postgres(applicationName: "api", poolSize: 32).maxConnections == 3)
        #expect(try infrastructure.postgres(applicationName: "poller", poolSize: 4).maxConnections == 3)
    }

    @Test func aBadPoolSizeNamesTheVariable() {
        #expect(throws: ConfigurationError.self) { try options(["DATABASE_POOL_SIZE": "0"]) }
    }

    @Test func producersGetTheirLingerAndConsumersTheSharedGroupSettings() throws {
        let infrastructure = try options(["KAFKA_STATISTICS_INTERVAL_MS": "1500", "KAFKA_SESSION_TIMEOUT_MS": "9000"])
        #expect(infrastructure.producer(clientId: "p", linger: .milliseconds(2)).linger == .milliseconds(2))
        #expect(infrastructure.producer(clientId: "p").linger == .milliseconds(5))
        let consumer = infrastructure.consumer(clientId: "c", groupId: "g", topics: ["t"])
        #expect(consumer.statisticsInterval == .milliseconds(1500))
        #expect(consumer.sessionTimeout == .seconds(9))
    }
}
