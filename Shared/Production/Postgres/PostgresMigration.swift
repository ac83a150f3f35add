/// One numbered schema change. Versions are applied once each, in ascending order.
public struct PostgresMigration: Sendable, Hashable {
    /// Positive and unique; the order of application.
    public let version: Int
    /// A short human description, recorded in `schema_migrations.name`.
    public let name: String
    /// Trusted constant SQL; may hold several statements. Runs inside one transaction.
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
