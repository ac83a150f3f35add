import Postgres

/// The `app_config` table (one row): what the app reads at start.
struct AppConfigStore: Sendable {
    let database: PostgresClient

    /// The single app_config row (defaults when it is missing).
    func appConfig() async throws -> APIBodies.AppConfigResponse {
        let rows = try await database.query("SELECT min_version, maintenance, message FROM app_config LIMIT 1", prepared: true)
        guard let row = rows.first else { return .init(minVersion: "1.0.0", maintenance: false, message: "") }
        return .init(minVersion: try row.decode("min_version"), maintenance: try row.decode("maintenance"), message: try row.decode("message"))
    }
}
