import Foundation

let status = QuotaWatchCLI.run(CommandLineArgument.processArguments())
exit(status.rawValue)
