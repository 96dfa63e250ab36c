import java.nio.file.Path;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;

/** Starts an embedded Neo4j 5 DBMS with Bolt on 127.0.0.1:PORT (auth off: a throwaway test instance). */
public final class Neo4jLauncher {
    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        DatabaseManagementService service = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(service::shutdown));
        System.out.println("NEO4J READY bolt://127.0.0.1:" + port);
        System.out.flush();
        Thread.currentThread().join();
    }
}
