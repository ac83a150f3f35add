import CLibPQ
import Runtime

/// Receives libpq notices (NOTICE/WARNING from the server, and the FATAL message a server sends
/// before ending an idle session) and writes them to the logger instead of libpq's default of
/// printing to stderr. Only severity, SQLSTATE and the primary message are logged, never DETAIL.
final class PQNoticeSink: Sendable {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Installs the receiver on `handle`; `self` must outlive the `PGconn` (the owning
    /// `PQConnection` stores it and calls `PQfinish` first).
    func install(on handle: OpaquePointer) {
        _ = PQsetNoticeReceiver(handle, pqNoticeReceiver, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func receive(severity: String, sqlState: String, message: String) {
        let metadata = ["severity": severity, "sqlstate": sqlState]
        switch severity {
        case "WARNING", "ERROR", "FATAL", "PANIC": logger.warning("postgres: \(message)", metadata)
        default: logger.debug("postgres: \(message)", metadata)
        }
    }
}

/// The C callback: `arg` is an unretained `PQNoticeSink`.
private func pqNoticeReceiver(_ arg: UnsafeMutableRawPointer?, _ result: OpaquePointer?) {
    guard let arg, let result else { return }
    func field(_ code: Character) -> String {
        PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) } ?? ""
    }
    Unmanaged<PQNoticeSink>.fromOpaque(arg).takeUnretainedValue()
        .receive(severity: field("V"), sqlState: field("C"), message: field("M"))
}
