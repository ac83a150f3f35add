import Foundation

/// Chooses how device-sim mints user JWTs.
enum TokenMinting {
    /// A pre-minted token from DEVICE_SIM_TOKEN (every user shares it — tests only), else the dev
    /// keys of `--dev-keys` (default `$STACK_DIR/dev-keys`, then `.stack/dev-keys`).
    static func make(_ configuration: SimulatorConfiguration, environment: [String: String]) throws -> any UserTokenMinter {
        if let token = environment["DEVICE_SIM_TOKEN"], !token.isEmpty { return StaticTokenMinter(value: token) }
        let directory = configuration.devKeysDirectory ?? ".stack/dev-keys"
        return try DevKeysTokenMinter(directory: directory, issuer: configuration.authIssuer, clientId: configuration.authClientId)
    }
}

/// No way to mint JWTs for the simulated users.
struct TokenMintingError: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
