CREATE TABLE `customers` (
	`region` varchar(16) NOT NULL,
	`id` int NOT NULL,
	`name` varchar(64) NOT NULL,
	`note` varchar(255),
	CONSTRAINT `customers_region_id_pk` PRIMARY KEY(`region`,`id`)
);
--> statement-breakpoint
CREATE TABLE `orders` (
	`region` varchar(16) NOT NULL,
	`customer_id` int NOT NULL,
	`order_no` int NOT NULL,
	`qty` int NOT NULL,
	`price` decimal(10,2),
	CONSTRAINT `orders_region_customer_id_order_no_pk` PRIMARY KEY(`region`,`customer_id`,`order_no`)
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`what` varchar(32) NOT NULL,
	`created_at` timestamp NOT NULL DEFAULT (now()),
	CONSTRAINT `events_id` PRIMARY KEY(`id`)
);
