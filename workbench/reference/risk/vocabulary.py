"""The risk vocabulary as data: concept -> terms, file-name globs, directory names, path globs.

``workbench.reference.risk`` interprets this table; nothing here is code. Field meanings:

- ``terms``: words or short phrases matched on whole, plural-folded tokens of a task or path
  (``"PayPal"`` matches ``paypal``, ``PayPal`` and ``pay_pal``; ``"api key"`` matches ``api key``,
  ``apiKey`` and ``apikey``). A trailing ``*`` makes a one-word stem of at least five letters
  (``authenticat*``); shorter stems are rejected because ``pay*`` would match ``payload``.
- ``files``: globs on the lower-cased file name (``*.spec.*``); ``{a,b}`` alternatives expand and
  ``@group`` inserts a list from ``groups``.
- ``dirs``: lower-cased directory names, matched against any directory of the path.
- ``paths``: globs on the tail of a path (``.github/workflows/*``).
- ``patterns``: regular expressions on the raw task text (query mode only), e.g. route shapes.

Path mode uses terms, files, dirs and paths; query mode uses terms and patterns.
"""

from __future__ import annotations

from typing import Any

# A hand-aligned data table (one concept per block, related terms on one line): not reformatted.
# fmt: off
STOP_WORDS = ["a", "an", "the", "to", "of", "for", "on", "in", "into", "at", "by", "with",
              "and", "or", "from", "our", "my", "this", "that", "is", "are", "be", "it"]

GROUPS: dict[str, list[str]] = {
    "manifests": [
        "package.json", "requirements{,-*,_*,.*}.txt", "requirements.in", "pyproject.toml",
        "setup.py", "setup.cfg", "pipfile", "go.mod", "cargo.toml", "gemfile", "*.gemspec",
        "composer.json", "pom.xml", "build.gradle", "build.gradle.kts", "*.csproj",
        "environment.yml", "deno.json", "bower.json",
    ],
    "lockfiles": [
        "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb",
        "pipfile.lock", "poetry.lock", "uv.lock", "pdm.lock", "go.sum", "cargo.lock",
        "gemfile.lock", "composer.lock", "packages.lock.json", "gradle.lockfile",
    ],
    "tests": [
        "*.test.*", "*.spec.*", "*_spec.rb", "test_*.py", "*_test.py", "*_test.go",
        "*tests.py", "conftest.py", "*.stories.*", "*.snap", "*.mock.*", "*.fixture.*",
    ],
    "docs": ["*.md", "*.mdx", "*.rst", "*.adoc", "license{,.*}", "changelog{,.*}",
             "authors{,.*}", "*.po", "*.pot"],
}

CONCEPTS: dict[str, dict[str, list[str]]] = {
    "money flow": {
        "terms": [
            "payment", "pay", "paid", "payer", "payee", "payout", "payable", "receivable",
            "repayment", "prepaid", "postpaid", "paywall", "payroll", "payslip", "paycheck",
            "billing", "bill", "invoice", "invoicing", "refund", "chargeback", "charge",
            "checkout", "cart", "purchase", "price", "pricing", "coupon", "discount", "tax",
            "vat", "currency", "money", "monetary", "wallet", "ledger", "subscription",
            "receipt", "revenue", "settlement", "escrow", "dunning", "fee", "iban", "sepa",
            "credit card", "debit card", "card number", "bank account", "bank transfer",
            "payment intent", "Stripe", "PayPal", "Braintree", "Adyen", "Razorpay", "Klarna",
            "Mollie", "Paddle", "Chargebee", "Recurly", "Zuora", "Plaid", "Venmo",
        ],
    },
    "auth/security": {
        "terms": [
            "auth", "authn", "authz", "authenticat*", "authoriz*", "authoris*", "login", "logout",
            "log in", "log out", "sign in", "sign out", "sign up", "password*", "passwd",
            "passphrase", "credential", "secret", "api key", "secret key", "private key",
            "access key", "access token", "refresh token", "id token", "bearer token",
            "auth token", "session token", "csrf token", "jwt", "jws", "jwk", "OAuth", "oidc",
            "OpenID", "saml", "sso", "ldap", "kerberos", "mfa", "2fa", "totp", "otp",
            "permission", "privilege", "rbac", "abac", "acl", "role", "access control", "session",
            "csrf", "xsrf", "xss", "cors", "csp", "content security policy", "encrypt*",
            "decrypt*", "crypto", "cryptography", "cipher", "bcrypt", "scrypt", "argon2", "hmac",
            "tls", "ssl", "certificate", "security", "vulnerab*", "cve", "sanitiz*",
            "sql injection", "impersonat*", "captcha", "recaptcha", "passport", "keycloak",
            "okta", "cognito", "brute force", "account lockout",
        ],
        "files": ["*.guard.*", "*.policy.*", "*.strategy.*"],
        "dirs": ["guards", "policies"],
    },
    "data model": {
        "terms": [
            "migration", "schema", "model", "entity", "orm", "database", "db", "sql",
            "database table", "db table", "sql table", "join table", "create table", "alter table",
            "drop table", "add column", "new column", "drop column", "rename column", "nullable column",
            "not null constraint", "backfill", "foreign key", "primary key", "add index", "create index", "drop index",
            "unique index", "unique constraint", "ddl", "data model", "prisma", "sequelize",
            "TypeORM", "MikroORM", "SQLAlchemy", "alembic", "knex", "mongoose", "drizzle",
            "gorm", "active record", "postgres", "postgresql", "mysql", "sqlite", "mongodb",
            "mongo", "dynamodb", "dao", "persistence",
        ],
        "files": ["*.sql", "*.prisma", "schema.rb", "models.py", "*.entity.*", "*.model.*",
                  "*.schema.*"],
        "dirs": ["migrate"],
    },
    "request surface": {
        "terms": [
            "route", "router", "routing", "controller", "endpoint", "api endpoint", "api route",
            "rest api", "http handler", "request handler", "route handler", "http server",
            "web server", "GraphQL", "resolver", "webhook", "middleware", "grpc", "rpc",
            "http request", "http method", "status code", "query param", "query parameter",
            "path param", "request body", "rate limit", "rate limiter", "servlet",
            "api gateway", "FastAPI", "HandleFunc", "ServeMux",
        ],
        "files": ["routes.*", "router.*", "urls.py", "views.py", "*.controller.*", "*.routes.*",
                  "*.router.*", "*.resolver.*", "*.handler.*", "*.handlers.*", "*.endpoint.*"],
        "dirs": ["handlers"],
        "patterns": [r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+/",
                     r"(?:^|\s)/api/", r"(?:^|\s)/[\w-]+(?:/[\w-]+)*/:\w+"],
    },
    "configuration": {
        "terms": [
            "config", "configuration", "configure", "setting", "env", "environment", "dotenv",
            "environment variable", "env var", "feature flag", "feature toggle",
            "runtime config", "k8s", "kubernetes", "helm", "terraform", "docker", "Dockerfile",
            "docker compose", "nginx", "ansible", "ci pipeline", "github actions", "webpack",
            "vite", "babel", "eslint", "prettier", "tsconfig",
        ],
        "files": [".env", ".env.*", "*.env", ".envrc", "*.config.*", "*.conf", "*.ini", "*.toml",
                  "*.properties", "settings.*", "config.*", "dockerfile", "docker-compose*.y{a,}ml",
                  "compose.y{a,}ml", ".editorconfig", ".npmrc", ".nvmrc", "tsconfig*.json",
                  ".babelrc", ".eslintrc*", ".prettierrc*", "*.tf", "*.tfvars", ".gitlab-ci.yml",
                  "jenkinsfile", "procfile", "app.y{a,}ml", "application.y{a,}ml"],
        "dirs": ["conf", "deploy", "deployment", "infra", ".github", ".circleci"],
    },
    "dependency": {
        "terms": [
            "dependency", "dep", "third party", "npm", "yarn", "pnpm", "pip", "pipenv", "poetry",
            "cargo", "bundler", "maven", "gradle", "nuget", "lockfile", "lock file", "bump",
            "semver", "dependabot", "renovate", "transitive", "vendored", "node_modules",
            "package.json", "requirements.txt", "pyproject.toml", "go.mod", "go.sum", "Gemfile",
            "Cargo.toml",
        ],
        "files": ["@manifests", "@lockfiles"],
        "dirs": ["vendor"],
        # a package moved to a version: "upgrade react to v19", "update urllib3 to 1.26.18"
        # ("update" only with a dotted version: "update docs to v2" is not a dependency)
        "patterns": [r"(?i)\b(?:upgrade|downgrade|bump|pin)\s+[@\w./-]+\s+(?:to|from)\s+v?\d+(?:\.\d+)*\b",
                     r"(?i)\b(?:update|roll back|revert)\s+[@\w./-]+\s+(?:to|from)\s+v?\d+(?:\.\d+)+\b"],
    },
    "frontend/backend contract": {
        "terms": [
            "dto", "openapi", "OpenAPI", "swagger", "api client", "http client", "rest client",
            "graphql client", "api call", "api response", "api request", "api type", "api schema",
            "api contract", "api spec", "api version", "contract", "serializer", "response shape",
            "response schema", "request schema", "response type", "request type",
            "request payload", "response payload", "shared type", "protobuf", "proto", "sdk",
            "axios", "trpc", "generated client", "breaking change", "backward compatible",
            "backward compatibility",
        ],
        "files": ["*.dto.*", "openapi.*", "swagger.*", "*.proto", "*.graphql", "*.gql", "*.api.*",
                  "serializers.py"],
    },
    "large file diff": {
        "terms": [
            "large file", "large diff", "big file", "big diff", "huge file", "huge diff",
            "giant file", "massive file", "massive diff", "whole file", "entire file",
            "whole codebase", "entire codebase", "mass rename", "bulk rename", "codemod",
            "reformat", "regenerate", "generated code", "generated file", "minified", "lockfile",
            "lock file", "snapshot", "package-lock.json", "yarn.lock", "pnpm-lock.yaml",
            "poetry.lock", "Cargo.lock", "go.sum",
        ],
        "files": ["@lockfiles", "*.min.*", "*.snap", "*.bundle.*", "*.generated.*", "*.pb.go",
                  "*_pb2.py", "*.g.dart"],
        "dirs": ["generated", "dist", "vendor"],
        "patterns": [r"(?i)\b(?:\d{1,3}(?:,\d{3})+|\d{4,}|\d+k)[- ]?(?:lines?|loc)\b"],
    },
}

# A path gates a merge when it is not exempt and it is a secret, carries one of ``concepts``,
# or matches the gate's own files/dirs/paths (CI and ownership rules that can switch checks off).
GATE: dict[str, Any] = {
    "concepts": ["money flow", "auth/security", "data model"],
    "secret": True,
    "files": ["codeowners", ".gitlab-ci.yml", "jenkinsfile", "azure-pipelines.yml"],
    "paths": [".github/workflows/*", ".circleci/*"],
    "exempt": {
        "files": ["@tests", "@docs", "@manifests", "@lockfiles"],
        "dirs": ["test", "tests", "__tests__", "spec", "specs", "fixtures", "fixture",
                 "__fixtures__", "testdata", "test-data", "__mocks__", "mocks", "e2e", "cypress",
                 "docs", "doc", "examples", "example", "locales", "locale", "i18n", "translations",
                 "__snapshots__", "stories", ".storybook"],
    },
}

SECRET: dict[str, Any] = {
    "files": [
        ".env", ".env.*", "*.env", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks",
        "*.keystore", "*.ppk", "*.kdbx", "id_{rsa,dsa,ecdsa,ed25519}{,_*}",
        "credentials", "credentials.{json,yml,yaml,xml,csv,ini,toml}",
        "*{-,_,.}credentials.{json,yml,yaml}", "client_secret*.json", "service{-,_}account*.json",
        "secrets.{json,yml,yaml,toml,ini,env,txt}", "*.secrets.{json,yml,yaml}",
        "secret.{json,yml,yaml}", "*.secret", ".npmrc", ".pypirc", ".netrc", "_netrc", ".pgpass",
        ".htpasswd", ".git-credentials", ".dockercfg", "*.tfvars", "*.tfstate{,.backup}",
        ".vault-token",
    ],
    "exempt": {
        "files": ["*.example", "*.sample", "*.template", "*.tpl", "*.dist", "*.pub", "*.md",
                  ".env.defaults", ".env.schema", "*.example.*"],
    },
}

VOCABULARY: dict[str, Any] = {
    "stopWords": STOP_WORDS,
    "groups": GROUPS,
    "concepts": CONCEPTS,
    "gate": GATE,
    "secret": SECRET,
}
# fmt: on
