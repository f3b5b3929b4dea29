/// The leftover rules and the cleaners of `check-config --json`: each kind's own fields are
/// an enum case, written beside the rule's `name` and `kind`.
extension ConfigSummaryDocument {
    package struct Leftovers: Codable, Sendable, Equatable {
        package var age: ContractNumber
        package var rules: [LeftoverRule]
        package var disabled: [String]

        package init(age: ContractNumber, rules: [LeftoverRule], disabled: [String]) {
            self.age = age
            self.rules = rules
            self.disabled = disabled
        }
    }

    package struct LeftoverRule: Codable, Sendable, Equatable {
        /// What the rule's kind measures: an age in seconds (`idle-file`, `older-than`), how many
        /// to keep (`keep-newest`), a size in bytes (`directory-over`).
        package enum Parameter: Sendable, Equatable {
            case age(ContractNumber)
            case keep(Int64)
            case limit(UInt64)
        }

        package var name: String
        package var kind: String
        package var paths: [String]
        package var protect: Bool
        package var parameter: Parameter

        package init(name: String, kind: String, paths: [String], protect: Bool, parameter: Parameter) {
            self.name = name
            self.kind = kind
            self.paths = paths
            self.protect = protect
            self.parameter = parameter
        }

        enum CodingKeys: String, CodingKey { case name, kind, paths, protect, age, keep, limit }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            kind = try container.decode(String.self, forKey: .kind)
            paths = try container.decode([String].self, forKey: .paths)
            protect = try container.decode(Bool.self, forKey: .protect)
            if let keep = try container.decodeIfPresent(Int64.self, forKey: .keep) {
                parameter = .keep(keep)
            } else if let limit = try container.decodeIfPresent(UInt64.self, forKey: .limit) {
                parameter = .limit(limit)
            } else {
                parameter = .age(try container.decode(ContractNumber.self, forKey: .age))
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(kind, forKey: .kind)
            try container.encode(paths, forKey: .paths)
            try container.encode(protect, forKey: .protect)
            switch parameter {
            case .age(let age): try container.encode(age, forKey: .age)
            case .keep(let keep): try container.encode(keep, forKey: .keep)
            case .limit(let limit): try container.encode(limit, forKey: .limit)
            }
        }
    }

    package struct Cleanup: Codable, Sendable, Equatable {
        /// `app_version`: a fixed version, or the plist it is read from; null when none.
        package enum AppVersion: Codable, Sendable, Equatable {
            case fixed(String)
            /// `{"file": path}`, escaped as paths are.
            case infoPlist(file: String)

            enum CodingKeys: String, CodingKey { case file }

            package init(from decoder: any Decoder) throws {
                if let container = try? decoder.container(keyedBy: CodingKeys.self) {
                    self = .infoPlist(file: try container.decode(String.self, forKey: .file))
                } else {
                    self = .fixed(try decoder.singleValueContainer().decode(String.self))
                }
            }

            package func encode(to encoder: any Encoder) throws {
                switch self {
                case .fixed(let version):
                    var container = encoder.singleValueContainer()
                    try container.encode(version)
                case .infoPlist(let file):
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(file, forKey: .file)
                }
            }
        }

        package var cleaners: [Cleaner]
        /// Seconds between runs when nothing else triggered one, per level.
        package var periodic: PerLevel
        package var appVersion: AppVersion?
        package var protect: [String]

        package init(cleaners: [Cleaner], periodic: PerLevel, appVersion: AppVersion?, protect: [String]) {
            self.cleaners = cleaners
            self.periodic = periodic
            self.appVersion = appVersion
            self.protect = protect
        }

        enum CodingKeys: String, CodingKey {
            case cleaners, periodic, protect
            case appVersion = "app_version"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(cleaners, forKey: .cleaners)
            try container.encode(periodic, forKey: .periodic)
            try container.encode(appVersion, forKey: .appVersion)
            try container.encode(protect, forKey: .protect)
        }
    }

    /// A configured cleaner in run order: its name, and its kind with that kind's fields.
    package struct Cleaner: Codable, Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            case leftovers
            /// `path` null: every quota directory.
            case evict(path: String?, order: String, target: ContractNumber)
            case trim(path: String, limit: UInt64)
            case expire(path: String, age: ContractNumber)
            case command(command: [String], timeout: ContractNumber)
            /// `timeout` null: the default wait for a reply.
            case registered(timeout: ContractNumber?)

            /// The `kind` written for it.
            package var name: String {
                switch self {
                case .leftovers: "leftovers"
                case .evict: "evict"
                case .trim: "webkit-trim"
                case .expire: "expire"
                case .command: "command"
                case .registered: "registered"
                }
            }
        }

        package var name: String
        package var kind: Kind

        package init(name: String, kind: Kind) {
            self.name = name
            self.kind = kind
        }

        enum CodingKeys: String, CodingKey { case name, kind, path, order, target, limit, age, command, timeout }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            let kindName = try container.decode(String.self, forKey: .kind)
            switch kindName {
            case "leftovers": kind = .leftovers
            case "evict":
                kind = .evict(
                    path: try container.decodeIfPresent(String.self, forKey: .path),
                    order: try container.decode(String.self, forKey: .order),
                    target: try container.decode(ContractNumber.self, forKey: .target))
            case "webkit-trim":
                kind = .trim(
                    path: try container.decode(String.self, forKey: .path),
                    limit: try container.decode(UInt64.self, forKey: .limit))
            case "expire":
                kind = .expire(
                    path: try container.decode(String.self, forKey: .path),
                    age: try container.decode(ContractNumber.self, forKey: .age))
            case "command":
                kind = .command(
                    command: try container.decode([String].self, forKey: .command),
                    timeout: try container.decode(ContractNumber.self, forKey: .timeout))
            case "registered":
                kind = .registered(timeout: try container.decodeIfPresent(ContractNumber.self, forKey: .timeout))
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .kind, in: container, debugDescription: "unknown cleaner kind '\(kindName)'")
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(kind.name, forKey: .kind)
            switch kind {
            case .leftovers: break
            case .evict(let path, let order, let target):
                try container.encode(path, forKey: .path)
                try container.encode(order, forKey: .order)
                try container.encode(target, forKey: .target)
            case .trim(let path, let limit):
                try container.encode(path, forKey: .path)
                try container.encode(limit, forKey: .limit)
            case .expire(let path, let age):
                try container.encode(path, forKey: .path)
                try container.encode(age, forKey: .age)
            case .command(let command, let timeout):
                try container.encode(command, forKey: .command)
                try container.encode(timeout, forKey: .timeout)
            case .registered(let timeout):
                try container.encode(timeout, forKey: .timeout)
            }
        }
    }
}
