import { main } from '@nrp/server';
import { configSchema } from './config';
import { createService, SERVICE_NAME } from './service';

main(SERVICE_NAME, configSchema, createService);
