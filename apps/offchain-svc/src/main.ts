import { main } from '@nrp/server';
import { configSchema } from './config';
import { serviceFactory, SERVICE_NAME } from './service';

main(SERVICE_NAME, configSchema, serviceFactory);
